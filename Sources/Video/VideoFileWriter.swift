import Foundation
import Hardware
import Motion

/// What a recording needs to know to name and describe its files.
public struct RecordingRequest: Sendable {
    /// The file stem ("VID_0007"); parts after a split get "-2", "-3", …
    public var id: String
    /// Storage-relative folder ("2026-12-01"), created when missing.
    public var folder: String
    public var capture: VideoCaptureState
    /// The board's IMU axis mapping, for the Gyroflow log (none without it).
    public var axisMapping: AxisMapping?
    /// The sensor mode's full-frame readout, ms (`frame_readout_time`).
    public var frameReadoutMilliseconds: Double?
    public var firmwareVersion: String?
    /// The video stream's size: with it, libx264's preset is chosen at the start from the speed
    /// measured at this size (`EncoderPresetChoice`); without it, the settings' preset is used.
    public var frameSize: PixelSize?
    /// The shot at a shared instant that starts this recording, recorded in its sidecar.
    public var shot: VideoShot?
    /// The trigger that started this recording (VideoTrigger.swift), recorded in its sidecar.
    public var trigger: VideoTrigger?

    public init(id: String, folder: String, capture: VideoCaptureState = VideoCaptureState(),
                axisMapping: AxisMapping? = nil, frameReadoutMilliseconds: Double? = nil, firmwareVersion: String? = nil,
                frameSize: PixelSize? = nil) {
        self.id = id; self.folder = folder; self.capture = capture; self.axisMapping = axisMapping
        self.frameReadoutMilliseconds = frameReadoutMilliseconds; self.firmwareVersion = firmwareVersion
        self.frameSize = frameSize
    }
}

/// One video file of a recording and the facts its sidecar reports. Lives on the encoder queue.
final class VideoFileWriter {
    let stem: String
    let part: Int
    let fileName: String
    private let request: RecordingRequest
    private let settings: VideoSettings
    private let encoder: VideoEncoder
    private let storage: any StreamingStorage
    private let muxer: VideoMuxer
    private(set) var first: FrameInfo?
    private(set) var last: FrameInfo?
    private(set) var framesWritten = 0
    private(set) var dropped: [DroppedFrame] = []
    private var timecodes = "# timecode format v2\n"
    private var gyroLog: GyroLogFile?
    private var exposureTime = RangeAccumulator(), iso = RangeAccumulator(), colourTemperature = RangeAccumulator()
    private var hdrRuns: [VideoHDRRun] = []
    private var stabilizedFrames: [StabilizedFrame] = []

    var bytesWritten: Int64 { muxer.bytesWritten }

    init(request: RecordingRequest, part: Int, settings: VideoSettings, encoder: VideoEncoder, storage: any StreamingStorage) throws(VideoError) {
        self.request = request; self.part = part; self.settings = settings; self.encoder = encoder; self.storage = storage
        stem = part == 1 ? request.id : "\(request.id)-\(part)"
        fileName = "\(stem).\(settings.container.fileExtension)"
        let path = "\(request.folder)/\(fileName)"
        let stream: any StorageStream
        do {
            try storage.createDirectory(request.folder)
            stream = try storage.createStream(path)
        } catch {
            throw VideoError(.storage, "\(path): \(error)", storageError: error as? HardwareError)
        }
        muxer = try VideoMuxer(stream: stream, path: "\(storage.rootDescription)/\(path)", container: settings.container, encoder: encoder,
                               playbackFramesPerSecond: settings.captureFramesPerSecond / settings.timeStretch)
    }

    /// Writes `packet`; its PTS is its SensorTimestamp − the file's first, in µs, stretched in slow motion.
    func write(_ packet: EncodedPacket) throws(VideoError) {
        let origin = first?.sensorTimestamp ?? packet.sensorTimestamp
        let elapsed = packet.sensorTimestamp - origin
        let pts = settings.timeStretch == 1 ? elapsed.nanoseconds / 1000
            : Int64((Double(elapsed.nanoseconds) * settings.timeStretch / 1000).rounded(.down))
        try muxer.write(packet, ptsMicroseconds: pts, sync: packet.isKeyframe && first != nil)
        if first == nil { first = packet.frame }
        last = packet.frame
        framesWritten += 1
        timecodes += String(format: "%.3f\n", Double(pts) / 1000)
        exposureTime.add(packet.frame.exposure?.exposureTimeMicroseconds)
        iso.add(packet.frame.exposure?.analogueGain.map { $0 * 100 })
        colourTemperature.add(packet.frame.exposure?.colourTemperatureKelvin)
        if let stabilized = packet.frame.stabilized { stabilizedFrames.append(stabilized) }
        let hdr = request.capture.hdr == "sensor" ? "sensor" : packet.frame.exposure?.hdr ?? "off"
        if let lastRun = hdrRuns.indices.last, hdrRuns[lastRun].hdr == hdr {
            hdrRuns[lastRun].frames += 1
        } else {
            hdrRuns.append(VideoHDRRun(firstFrame: framesWritten - 1, firstSequence: packet.frame.sequence, frames: 1, hdr: hdr))
        }
    }

    func recordDropped(_ frames: [DroppedFrame]) { dropped += frames }

    /// Appends IMU samples to the Gyroflow log, which opens once the first frame is written
    /// (t = 0 there) when the request has the board's axis mapping.
    func appendMotion(_ samples: [IMUSample]) throws(VideoError) {
        guard let first, let mapping = request.axisMapping, !samples.isEmpty else { return }
        if gyroLog == nil {
            var writer = GcsvWriter(axisMapping: mapping, origin: first.sensorTimestamp, frameReadoutMilliseconds: request.frameReadoutMilliseconds)
            writer.videoFilename = fileName
            writer.firmwareVersion = request.firmwareVersion
            writer.unixTimestampSeconds = first.wallClockNanoseconds.map { Double($0) / 1e9 }
            gyroLog = try GyroLogFile(storage: storage, folder: request.folder, fileName: "\(stem).gcsv", writer: writer)
        }
        try gyroLog?.append(samples)
    }

    /// Finishes the file (trailer) or, after a storage or encoder `error`, leaves it as written
    /// (a low-room stop and a lost camera still finish: the storage works); closes the Gyroflow log; then
    /// writes the timecodes and the sidecar atomically. Returns the sidecar and the first error of
    /// the recording, of finishing or of writing the companions.
    func close(error: VideoError?, stills: [VideoStill] = []) -> (VideoSidecar, VideoError?) {
        var failure = error
        if error == nil || error?.kind == .noRoom || error?.kind == .sourceLost {
            do { try muxer.finish() } catch { failure = failure ?? error }
        } else {
            muxer.abandon()
        }
        do { try gyroLog?.close() } catch { failure = failure ?? error }
        let span = (first?.sequence ?? 0)...(last?.sequence ?? 0)
        let sidecar = makeSidecar(error: failure, gyroLog: gyroLog?.fileName, stills: stills.filter { span.contains($0.sequence) })
        do {
            let base = "\(request.folder)/\(stem)"
            try storage.writeAtomically(Array(timecodes.utf8), to: "\(base).timecodes.txt")
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try storage.writeAtomically(Array(try encoder.encode(sidecar)) + [0x0A], to: "\(base).json")
        } catch {
            failure = failure ?? VideoError(.storage, "\(request.folder)/\(stem): companions: \(error)", storageError: error as? HardwareError)
        }
        return (sidecar, failure)
    }

    private func makeSidecar(error: VideoError?, gyroLog: String?, stills: [VideoStill]) -> VideoSidecar {
        let firstTime = first?.sensorTimestamp.nanoseconds ?? 0
        let lastTime = last?.sensorTimestamp.nanoseconds ?? firstTime
        let format = VideoSidecar.Format(
            container: settings.container.rawValue, codec: settings.codec.rawValue, encoder: encoder.encoderName,
            encoderNote: encoder.fallbackNote, encoderPreset: encoder.preset, encoderPresetReason: encoder.presetReason,
            bitrateBitsPerSecond: settings.bitrateBitsPerSecond,
            width: encoder.size.width, height: encoder.size.height, captureFramesPerSecond: settings.captureFramesPerSecond,
            timeStretch: settings.timeStretch, ptsTimeBase: settings.container == .mp4 ? "1/1000000" : "1/1000")
        return VideoSidecar(
            id: request.id, file: fileName, part: part, format: format,
            startWallClockSeconds: first?.wallClockNanoseconds.map { Double($0) / 1e9 },
            firstSensorTimestampNanoseconds: firstTime, lastSensorTimestampNanoseconds: lastTime,
            durationSeconds: Double(lastTime - firstTime) / 1e9 * settings.timeStretch,
            framesWritten: framesWritten, firstSequence: first?.sequence ?? 0, lastSequence: last?.sequence ?? 0,
            droppedFrames: dropped, capture: request.capture,
            exposure: VideoSidecar.Exposure(exposureTimeMicroseconds: exposureTime.range, iso: iso.range,
                                            colourTemperatureKelvin: colourTemperature.range),
            hdrFrames: hdrRuns,
            timecodesFile: "\(stem).timecodes.txt", gyroLogFile: gyroLog, stills: stills,
            status: error == nil ? "complete" : "stopped", error: error?.message,
            shot: part == 1 ? request.shot?.noting(firstFrame: first) : nil,
            stabilizedFrames: stabilizedFrames.isEmpty ? nil : stabilizedFrames,
            trigger: part == 1 ? request.trigger : nil)
    }
}

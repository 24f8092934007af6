import Hardware

/// The encoder side of `RecordingService`: encoder, pre-record ring, the open file, splits and
/// faults. Every method runs on the service's serial queue; `status` is the only state it shares.
final class RecordingPipeline {
    private let storage: any StreamingStorage
    private let status: LockedValue<RecordingStatus>
    /// Delivers an event to the loop.
    private let emit: (RecordingEvent) -> Void
    /// Tells the service a recording ended (its id), so `start` works again.
    private let ended: (String) -> Void

    private var settings = VideoSettings()
    private var encoder: VideoEncoder?
    /// Packed RGB frames (a camera with no video stream) become I420 here, and stabilization crops are cut.
    private let converter = FrameConverter()
    private var ring: PrerecordRing?
    private var recording: Active?
    private var lastSequence: UInt64?
    /// Sequences the inbox dropped (already counted) that the gap check must not count again.
    private var droppedBeforeEncoder: Set<UInt64> = []
    /// Recent IMU samples, oldest first.
    private var motion: [IMUSample] = []
    /// Measures libx264's speed for the preset choice at a start (nil: never measure).
    private let speedProbe: (any EncoderSpeedProbe)?
    /// The preset chosen at the last start, for the encoder that opens next.
    private var presetChoice: EncoderPresetChoice?
    /// The live stream, fed every packet while set (EncodedVideoSink.swift).
    private var stream: StreamTap?
    /// True when the open encoder runs for the stream alone (at its bit rate): a recording's start
    /// replaces it with one at `video.bitrate`.
    private var encoderServesStreamOnly = false

    private struct Active {
        var request: RecordingRequest
        var part = 1
        /// The part's file: open, or waiting for the keyframe that opens it.
        var file = PartFile.awaitingKeyframe(dropped: [])
        /// The frame whose forced keyframe starts the next part.
        var splitAt: UInt64?
        var keyframeWanted = true
        var reserveBytes: Int64
        var first: MonotonicTime?
        var last: MonotonicTime?
        var framesWritten = 0
        var dropped = 0
        var closedBytes: Int64 = 0

        /// The part's file while one is open.
        var openFile: VideoFileWriter? {
            if case .writing(let file) = file { file } else { nil }
        }
    }

    /// A recording's current part on disk.
    private enum PartFile {
        /// No file is open: the next keyframe opens one (the first part's, or the next part's after
        /// a split). `dropped`: drops seen meanwhile (the encoder's lookahead delays the first
        /// file), recorded in that file when it opens.
        case awaitingKeyframe(dropped: [DroppedFrame])
        /// The part's file, open and being written.
        case writing(VideoFileWriter)
    }

    /// Stills noted during the recording (`RecordingService.noteStill`), for the sidecars.
    private let stills: LockedValue<[VideoStill]>

    init(storage: any StreamingStorage, status: LockedValue<RecordingStatus>, stills: LockedValue<[VideoStill]>,
         speedProbe: (any EncoderSpeedProbe)?, emit: @escaping (RecordingEvent) -> Void, ended: @escaping (String) -> Void) {
        self.storage = storage; self.status = status; self.stills = stills; self.speedProbe = speedProbe
        self.emit = emit; self.ended = ended
    }

    func configure(_ settings: VideoSettings) {
        self.settings = settings
        encoder = nil
        presetChoice = nil
        ring = settings.prerecordSeconds > 0 ? makeRing() : nil
        publish()
    }

    private func makeRing() -> PrerecordRing {
        // Room for the window plus two keyframe groups at twice the bit rate.
        let seconds = settings.prerecordSeconds + 2 * settings.keyframeIntervalSeconds
        return PrerecordRing(window: .nanoseconds(Int64(settings.prerecordSeconds * 1e9)),
                             maximumBytes: Int(Double(settings.bitrateBitsPerSecond) / 8 * seconds * 2) + (1 << 20))
    }

    var isRecording: Bool { recording != nil }

    /// Feeds the live stream from the next packet on (nil: stops). An encoder that ran for the
    /// stream alone closes, so the next frame opens one at the new bit rate (or none).
    func setStream(_ tap: StreamTap?) {
        let bitrateChanged = tap?.bitrateBitsPerSecond != stream?.bitrateBitsPerSecond
        stream = tap
        if encoderServesStreamOnly, bitrateChanged || tap == nil { encoder = nil; encoderServesStreamOnly = false }
    }

    /// Whether a start of `request` under `settings` measures libx264's speed first: H.264 through
    /// libx264 (no hardware encoder preferred), no pre-record (its encoder already runs), and the
    /// frame size known. The service keeps the inbox closed until the measurement is done.
    /// With the live stream on neither: its encoder runs before the start, and a measurement would
    /// stop the stream.
    static func measuresAtStart(_ settings: VideoSettings, _ request: RecordingRequest, probe: (any EncoderSpeedProbe)?,
                                streaming: Bool) -> Bool {
        probe != nil && request.frameSize != nil && settings.codec == .h264 && settings.prerecordSeconds == 0 && !streaming
            && (settings.encoderName ?? settings.softwareEncoderName) == settings.softwareEncoderName
    }

    /// Before a recording's first frame: chooses libx264's preset for it (`EncoderPresetChoice`)
    /// from the speed `speedProbe` measures at the request's frame size, or says why the
    /// settings' own preset stays. Runs on the encoder queue; the camera loop goes on meanwhile.
    func choosePreset(for request: RecordingRequest) {
        guard encoder == nil, settings.codec == .h264 else { return }
        let preset = settings.x264Preset ?? "medium"
        guard Self.measuresAtStart(settings, request, probe: speedProbe, streaming: stream != nil), let probe = speedProbe,
              let size = request.frameSize else {
            let why = settings.prerecordSeconds > 0 ? "the pre-record encoder runs before any start"
                : stream != nil ? "the live stream's encoder runs before any start"
                : settings.encoderName.map { "libx264 is only the fallback for \($0)" } ?? "the frame size was not known at the start"
            presetChoice = EncoderPresetChoice(preset: preset, reason: "the settings' preset, not measured: \(why)")
            return
        }
        let settings = self.settings
        let measure = { (candidate: String) throws(VideoError) -> Double in
            try probe.framesPerSecond(settings: settings.withX264Preset(candidate), size: size)
        }
        presetChoice = EncoderPresetChoice.choose(size: size, captureFramesPerSecond: settings.captureFramesPerSecond, measure: measure)
    }

    func start(_ request: RecordingRequest, reserveBytes: Int64) {
        recording = Active(request: request, reserveBytes: reserveBytes)
        if encoderServesStreamOnly { encoder = nil; encoderServesStreamOnly = false }  // the recording's bit rate
        // Without a ring no frame came since the last recording: the gap before this one is not its loss.
        guard var ring else { lastSequence = nil; publish(); return }
        let held = ring.takeAll()
        self.ring = ring
        recording?.keyframeWanted = held.isEmpty
        for packet in held where recording != nil { write(packet) }
        publish()
    }

    /// Flushes the encoder into the file and ends the recording, failed with `reason` if given.
    func stop(reason: VideoError? = nil) {
        guard recording != nil else { return }
        if let encoder {
            do { for packet in try encoder.flush() { route(packet) } } catch { fail(error); return }
        }
        encoder = nil  // flushed: the next frame opens a fresh one
        presetChoice = nil  // and the next start chooses its preset again
        end(error: reason)
    }

    /// New IMU samples: appended to the open file's Gyroflow log, and a few seconds kept for the
    /// next file's margin (after a split, or the pre-record window).
    func takeMotion(_ samples: [IMUSample]) {
        motion += samples
        if let file = recording?.openFile {
            do { try file.appendMotion(motion) } catch { end(error: error); return }
        }
        // Before the first file opens, keep all; otherwise the ring's span (with the margin) or the
        // last 3 s (the IMU runs ahead of the camera by its pipeline latency).
        guard recording == nil || recording?.openFile != nil, let newest = motion.last?.timestamp else { return }
        let keepFrom = min(newest - .seconds(3), (recording == nil ? ring?.packets.first?.sensorTimestamp : nil).map { $0 - GyroLogFile.margin } ?? newest)
        if let cut = motion.firstIndex(where: { $0.timestamp >= keepFrom }), cut > 0 { motion.removeFirst(cut) }
    }

    func recordDropped(_ frames: [DroppedFrame]) {
        for frame in frames where frame.cause == .queueFull { droppedBeforeEncoder.insert(frame.sequence) }
        guard !frames.isEmpty, recording != nil else { return }
        recording?.dropped += frames.count
        switch recording?.file {
        case .writing(let file)?: file.recordDropped(frames)
        case .awaitingKeyframe(let dropped)?: recording?.file = .awaitingKeyframe(dropped: dropped + frames)
        case nil: break
        }
        publish()
    }

    func process(_ input: VideoFrame) {
        var frame = input
        if let last = lastSequence, frame.sequence > last + 1, recording != nil {
            // A gap the inbox dropped is already recorded; the rest the camera never delivered.
            // The first 1000 are listed, all counted (a wild jump costs no time).
            let known = droppedBeforeEncoder.filter { $0 > last && $0 < frame.sequence }.count
            let listed = ((last + 1)..<frame.sequence).lazy.filter { !self.droppedBeforeEncoder.contains($0) }.prefix(1000)
            let entries = listed.map {
                DroppedFrame(sequence: $0, sensorTimestampNanoseconds: frame.sensorTimestamp.nanoseconds, cause: .sequenceGap)
            }
            recordDropped(Array(entries))
            let unlisted = Int(clamping: frame.sequence - last - 1) - known - entries.count
            if unlisted > 0 { recording?.dropped += unlisted }
        }
        droppedBeforeEncoder = droppedBeforeEncoder.filter { $0 > frame.sequence }
        lastSequence = frame.sequence
        guard recording != nil || ring != nil || stream != nil else { return }
        do { frame = try converter.convert(frame) } catch {
            recordDropped([DroppedFrame(sequence: frame.sequence, sensorTimestampNanoseconds: frame.sensorTimestamp.nanoseconds, cause: .refused)])
            status.withLock { $0.lastError = error.message }
            return
        }
        let encoder: VideoEncoder
        if let open = self.encoder { encoder = open } else {
            var chosen = presetChoice.map { settings.withX264Preset($0.preset) } ?? settings
            let streamOnly = recording == nil && ring == nil
            if streamOnly, let stream { chosen.bitrateBitsPerSecond = stream.bitrateBitsPerSecond }
            let reason = presetChoice?.reason ?? "the settings' preset, not measured: the encoder opened before a start (pre-record or stream)"
            do { encoder = try VideoEncoder(settings: chosen, size: frame.size, presetReason: reason) } catch { fail(error); return }
            self.encoder = encoder
            encoderServesStreamOnly = streamOnly
            if let note = encoder.fallbackNote { emit(.encoderFallback(note)) }
            status.withLock { $0.encoder = encoder.encoderName; $0.encoderPreset = encoder.preset }
        }
        var force = stream?.sink.takeKeyframeRequest() ?? false
        if var active = recording {
            if active.keyframeWanted { force = true; active.keyframeWanted = false }
            if settings.splitMinutes > 0, active.splitAt == nil, let start = active.openFile?.first?.sensorTimestamp,
               frame.sensorTimestamp - start >= .nanoseconds(Int64(settings.splitMinutes * 60e9)) {
                active.splitAt = frame.sequence
                force = true
            }
            recording = active
        }
        let packets: [EncodedPacket]
        do { packets = try encoder.encode(frame, forceKeyframe: force) } catch {
            if error.kind == .invalidArgument {
                recordDropped([DroppedFrame(sequence: frame.sequence, sensorTimestampNanoseconds: frame.sensorTimestamp.nanoseconds, cause: .refused)])
                return
            }
            fail(error)
            return
        }
        for packet in packets { route(packet) }
        publish()
    }

    private func route(_ packet: EncodedPacket) {
        if recording != nil { write(packet) } else { ring?.append(packet) }
        if let stream, let encoder { stream.send(packet, from: encoder) }
    }

    private func write(_ packet: EncodedPacket) {
        guard var active = recording, let encoder else { return }
        if active.splitAt == packet.sequence, packet.isKeyframe, let file = active.openFile {
            active.splitAt = nil
            active.closedBytes += file.bytesWritten
            recording = active
            let (sidecar, error) = file.close(error: nil, stills: stills.withLock { $0 })
            emit(.fileClosed(sidecar))
            if let error { recording?.file = .awaitingKeyframe(dropped: []); end(error: error, closed: true); return }
            active.file = .awaitingKeyframe(dropped: [])
            active.part += 1
        }
        let file: VideoFileWriter
        switch active.file {
        case .writing(let open):
            file = open
        case .awaitingKeyframe(let dropped):
            guard packet.isKeyframe else { return }  // a file starts at a keyframe
            do {
                file = try VideoFileWriter(request: active.request, part: active.part, settings: settings, encoder: encoder, storage: storage)
                file.recordDropped(dropped)
                active.file = .writing(file)
            } catch {
                recording = active
                end(error: error)
                return
            }
        }
        recording = active
        do {
            let opening = file.first == nil
            try file.write(packet)
            if opening { try file.appendMotion(motion) }
            if packet.isKeyframe { try checkRoom(active.reserveBytes) }
        } catch {
            end(error: error)
            return
        }
        if active.first == nil { recording?.first = packet.sensorTimestamp }
        recording?.last = packet.sensorTimestamp
        recording?.framesWritten += 1
    }

    private func checkRoom(_ reserve: Int64) throws(VideoError) {
        let free: Int64
        do { free = try storage.freeBytes() } catch {
            throw VideoError(.storage, "\(storage.rootDescription): free space: \(error)", storageError: error as? HardwareError)
        }
        if free < reserve { throw VideoError(.noRoom, "\(storage.rootDescription): only \(free) bytes left, stopped to keep \(reserve)") }
    }

    /// An encoder failure: ends a recording with it, or drops the pre-record encoder.
    private func fail(_ error: VideoError) {
        encoder = nil
        encoderServesStreamOnly = false
        if recording != nil { end(error: error) } else {
            status.withLock { $0.lastError = error.message }
        }
    }

    /// Closes the open file (finalised, or as written after `error`), reports, and goes idle.
    private func end(error: VideoError?, closed: Bool = false) {
        guard var active = recording else { return }
        var failure = error
        if !closed, let file = active.openFile {
            let (sidecar, closeError) = file.close(error: error, stills: stills.withLock { $0 })
            emit(.fileClosed(sidecar))
            failure = failure ?? closeError
            active.closedBytes += file.bytesWritten
            active.file = .awaitingKeyframe(dropped: [])
        }
        recording = active
        publish()  // the final counts, trailer included
        recording = nil
        if error != nil { encoder = nil }
        if settings.prerecordSeconds > 0 { ring = makeRing() }
        status.withLock { s in
            s.state = ring == nil ? .idle : .prerecording
            s.lastError = failure?.message
        }
        publish()
        ended(active.request.id)
        emit(.stopped(id: active.request.id, error: failure))
    }

    private func publish() {
        let active = recording
        let ringBytes = ring?.byteCount ?? 0
        status.withLock { s in
            s.prerecordBytes = ringBytes
            guard let active else {
                if s.state == .recording { return }
                s.state = ring == nil ? .idle : .prerecording
                return
            }
            s.state = .recording
            s.id = active.request.id
            s.framesWritten = active.framesWritten
            s.droppedFrames = active.dropped
            s.bytesWritten = active.closedBytes + (active.openFile?.bytesWritten ?? 0)
            if let first = active.first, let last = active.last {
                s.durationSeconds = (last - first).secondsValue * settings.timeStretch
            }
        }
    }
}

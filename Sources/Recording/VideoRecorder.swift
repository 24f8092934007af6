import Camera
import Foundation
import Hardware
import Lifecycle
import Media
import Motion
import Stabilization
import Units
import Video

/// Recording as a service beside `CaptureService`: it owns the `RecordingService` (encoder queue,
/// files) and what recording asks of the camera (the video stream and its rate), and it is fed
/// the same frames. Loop-confined.
///
/// Like the capture service it never calls back into the supervisor: it reads the camera from the
/// camera's one owner (`CameraSlot`), the supervisor pushes the `video.*` settings and the capture
/// state to label files with; what happens flows out as events (`emit`), a work mark while a
/// recording runs (a stop waits for its file to be finalised), and the LED's resting pattern
/// (`onRecordingChange`).
public final class VideoRecorder {
    public let loop: any EventLoop
    public let work: WorkTracker
    /// The camera's one owner (the composition's), read only.
    private let attached: any AttachedCamera
    /// The camera, while one is attached: what recording asks of it (the video stream and its rate).
    private var camera: (any VideoStreamCamera)? { attached.controller }
    /// The board's hardware H.264 encoder ("h264_v4l2m2m"), tried first for `video.codec h264`.
    public let boardEncoder: String?
    /// Where events go (the console layer words them for the consoles and the journal).
    public let emit: (RecorderEvent) -> Void
    /// The console's keys of the settings its refusals name, given by the edge.
    public let settingKeys: SettingKeys
    /// Called with true when a recording starts and false when it has ended.
    private let onRecordingChange: (Bool) -> Void
    /// The `video.*` settings in force (pushed on every change).
    public private(set) var settings = VideoSettings()
    /// The encoder side: where videos go, and the recording service once something asked for video.
    private var encoding: Encoding
    /// The recording service, once started (nil before, and without video storage).
    private var service: RecordingService? {
        if case .started(let service, _) = encoding { service } else { nil }
    }
    /// What the service was last configured with.
    private var configuredSettings: VideoSettings?
    /// The recording in progress (its id), from `start` until its `stopped` event.
    public private(set) var recordingID: String?
    /// Frames `submit` refused (a buffer the encoder cannot take), reported once per recording.
    private var submitFailureReported = false
    private let naming = CaptureNaming(prefix: "VID")
    /// Video stabilization of the frames being encoded (a recording or the pre-record ring) and
    /// where its stabilizers come from (each reads the orientation from the tracker it was made with).
    private let stabilization: RecordingStabilizerSlot
    /// True while the encoded frames are stabilized here (the viewfinder's ScalerCrop stays off then,
    /// or the video would be cropped twice).
    public var stabilizesInSoftware: Bool { stabilization.isActive }
    /// The work mark a recording holds.
    public static let workReason = "recording"
    /// The recent IMU samples, the newest frame's end, and a stop waiting until the samples reach
    /// the end of the last frame, so the Gyroflow log covers the whole video; at most
    /// `motionCoverWait`. Frames that arrive meanwhile are not recorded.
    private var motion = MotionCoverage()
    public static let motionCoverWait: Duration = .milliseconds(500)
    /// A shot's `record start` or `record stop` waiting for its instant (`armShot`).
    private var armedShot: ArmedShot?

    /// Where the encoder side stands.
    private enum Encoding {
        /// The captures storage cannot stream video files: `record` says so.
        case unavailable
        /// Nothing asked for video yet (a recording, a pre-record, the live stream): no encoder
        /// queue runs. Videos will go to this storage.
        case notStarted(any StreamingStorage)
        /// The recording service (encoder queue, files), made at the first arm and kept.
        case started(RecordingService, storage: any StreamingStorage)
    }

    /// A shot's record action, armed: it runs on the first frame whose exposure starts at or after
    /// `instant` (frame metadata decides, never a timer).
    private struct ArmedShot {
        var instant: ExposureInstant
        /// True for `record start` (that frame is the first recorded), false for `record stop` (the
        /// last recorded is the frame before it).
        var starts: Bool
        var begin: () throws(RecorderError) -> RecordingStarted
        var ended: (Result<ArmedShotOutcome, RecorderError>) -> Void
    }

    /// Measures libx264's presets at a recording's start (nil: the settings' preset, unmeasured).
    private let speedProbe: (any EncoderSpeedProbe)?
    /// Whether triggers may start recordings, and the frames a triggered recording begins with.
    private var trigger = TriggerPrerollState()
    /// True while triggers may start recordings (`trigger.action record`): `video.prerecord` is then
    /// kept as frames (`TriggerPreroll`), exact to the frame, instead of encoded packets.
    public var triggerPrerollWanted: Bool { trigger.wanted }
    /// The live stream fed with the encoder's packets (nil sink: off) and its encoder's bit rate.
    private var stream = LiveStreamFeed()

    /// `camera`: the camera's owner, which the composition attaches the controller to;
    /// `boardEncoder`: the board's hardware H.264 encoder, if any; `speedProbe`: times libx264 at a
    /// start to choose its preset (`EncoderPresetChoice`); `settingKeys`: the settings' console keys,
    /// for messages; `emit`: where events go; `onRecordingChange`: true when a recording starts,
    /// false when it has ended; `makeStabilizer`: a stabilizer for the mode in force, or nil;
    /// `stabilizerChanged`: told whether the encoded frames are stabilized here, whenever that may
    /// have changed.
    public init(loop: any EventLoop, camera: any AttachedCamera, storage: any Storage, work: WorkTracker, boardEncoder: String? = nil,
                speedProbe: (any EncoderSpeedProbe)? = nil, settingKeys: SettingKeys,
                emit: @escaping (RecorderEvent) -> Void = { _ in },
                onRecordingChange: @escaping (Bool) -> Void = { _ in },
                makeStabilizer: @escaping () -> RecordingStabilizer? = { nil },
                stabilizerChanged: @escaping (_ stabilizesInSoftware: Bool) -> Void = { _ in }) {
        self.loop = loop
        self.attached = camera
        self.onRecordingChange = onRecordingChange
        self.stabilization = RecordingStabilizerSlot(make: makeStabilizer, changed: stabilizerChanged)
        self.speedProbe = speedProbe
        self.encoding = (storage as? any StreamingStorage).map(Encoding.notStarted) ?? .unavailable
        self.work = work
        self.boardEncoder = boardEncoder
        self.emit = emit
        self.settingKeys = settingKeys
    }

    public var isRecording: Bool { recordingID != nil }

    /// Blocks until the encoder queue has done what it was given (tests; events still hop to the loop).
    public func drainEncoder() { service?.drain() }

    /// The recording's snapshot for `status`, or nil before anything was configured.
    public var status: RecordingStatus? { service?.status }

    /// New `video.*` settings (already validated by the schema). Refused while recording. With a
    /// pre-record time the video stream and encoder start now, so a later `record start` has
    /// the seconds before it.
    /// A refused change leaves the previous settings in force.
    public func apply(_ typed: VideoSettings) throws(RecorderError) {
        if let recordingID { throw RecorderError(.busy, "recording \(recordingID): video settings change after record stop") }
        var next = typed
        next.encoderName = typed.codec == .h264 ? boardEncoder : nil
        let previous = settings
        settings = next
        do throws(RecorderError) {
            if next.prerecordSeconds > 0 || stream.sink != nil { try arm(restabilize: true) } else {
                if service != nil { try configureService() }
                disarm()
            }
        } catch {
            settings = previous
            if previous.prerecordSeconds > 0 { try? arm(restabilize: false) } else { disarm() }
            throw error
        }
    }

    /// The video stabilization mode or the format changed: outside a recording, the pre-record
    /// ring's stabilizer is rebuilt for it (a recording keeps the one it started with).
    public func videoStabilizationChanged() {
        guard !isRecording, settings.prerecordSeconds > 0, service != nil else { return }
        replaceStabilizer()
        do throws(RecorderError) { try configureService() } catch {
            emit(.streamFailure(reason: "pre-record: \(error.message)"))
        }
    }

    /// Hands the held frames to the service (smoothed over what is known) and starts a new
    /// stabilizer for the mode in force.
    private func replaceStabilizer() { stabilization.replace(handingTo: service) }

    /// Gives the frames the stabilizer holds to the service, to the recording or ring they belong
    /// to; then a fresh stabilizer if `restart`, else none.
    private func handOverHeldFrames(restart: Bool) { stabilization.handOverHeldFrames(to: service, restart: restart) }

    /// The settings the encoder gets: `video.fps` capped by the active format's fastest rate.
    private func effectiveSettings() -> VideoSettings {
        var s = settings
        if let camera { s.captureFramesPerSecond = min(s.captureFramesPerSecond, camera.activeFormat.format.maximumFps) }
        // A trigger pre-roll keeps frames, not packets: no encoder runs before a start, and the
        // queue takes the pre-roll at once when a trigger starts a recording.
        let frames = Self.prerollFrames(prerecordSeconds: s.prerecordSeconds, framesPerSecond: s.captureFramesPerSecond)
        if triggerPrerollWanted, frames > 0 { s.prerecordSeconds = 0; s.queueCapacityFrames += frames + 1 }
        // Cinematic holds frames back; the queue makes room for the look-ahead released at a stop.
        s.queueCapacityFrames += 2 * stabilization.lookaheadFrames
        return s
    }

    /// Configures the encoder and asks the camera for the video stream at the recording's rate;
    /// `restabilize` starts a new stabilizer (else one is made only when there is none).
    private func arm(restabilize: Bool) throws(RecorderError) {
        if case .unavailable = encoding {
            throw RecorderError(.unsupported, "captures storage cannot stream video files")
        }
        guard let camera else { throw RecorderError(.busy, "the camera is not open") }
        if case .notStarted(let storage) = encoding {
            let me = WeakLoopBound(self, loop: loop)  // the recorder owns the service; its events arrive on the loop
            encoding = .started(RecordingService(storage: storage, loop: loop, speedProbe: speedProbe) { event in me.value?.handle(event) },
                                storage: storage)
        }
        if restabilize || !stabilization.isActive { replaceStabilizer() }
        try configureService()
        let effective = effectiveSettings()
        do {
            try camera.requestVideoStream(VideoStreamRequest(framesPerSecond: effective.captureFramesPerSecond))
        } catch {
            throw RecorderError(.device, "camera: cannot stream for video: \(error)")
        }
    }

    /// Gives the service the effective settings when they changed (configuring restarts its
    /// encoder and empties the pre-record ring, so an unchanged configuration is left alone).
    private func configureService() throws(RecorderError) {
        guard let service else { return }
        let effective = effectiveSettings()
        let frames = triggerPrerollWanted ? Self.prerollFrames(prerecordSeconds: settings.prerecordSeconds, framesPerSecond: effective.captureFramesPerSecond) : 0
        if triggerPrerollWanted, frames > Self.maximumPrerollFrames {
            throw RecorderError(.badValue, "\(settingKeys.prerecord) × \(settingKeys.framesPerSecond) is \(frames) frames; a triggered recording's pre-roll holds at most \(Self.maximumPrerollFrames)")
        }
        if triggerPrerollWanted, frames > 0, stream.sink != nil {
            // The stream's frames and a trigger's pre-roll frames would meet in the encoder out of order.
            throw RecorderError(.notYet, "the live stream with a trigger's frame pre-roll (\(settingKeys.triggerAction) record and \(settingKeys.prerecord)) is not built yet; set \(settingKeys.stream) off or \(settingKeys.prerecord) 0")
        }
        guard effective != configuredSettings else { return }
        do throws(VideoError) { try service.configure(effective) } catch { throw RecorderError(.badValue, error.message) }
        configuredSettings = effective
        // The pre-roll's frames and the trigger frame itself.
        trigger.frames = triggerPrerollWanted && frames > 0 ? TriggerPreroll(capacityFrames: frames + 1) : nil
    }

    /// The most frames a trigger pre-roll holds (the encoder queue's bound, less its own 8).
    public static let maximumPrerollFrames = 240

    /// `video.prerecord` × `video.fps`, rounded: the frames a triggered recording begins with before its trigger frame.
    public static func prerollFrames(prerecordSeconds: Double, framesPerSecond: Double) -> Int {
        Int((prerecordSeconds * framesPerSecond).rounded())
    }

    /// The pre-roll in frames that a triggered recording would get now (0: none).
    public var triggerPrerollFrames: Int { trigger.frames.map { $0.capacityFrames - 1 } ?? 0 }

    /// Triggers may (or may no longer) start recordings: with `video.prerecord` the frames before
    /// each are kept from now on (TriggerPreroll.swift). Refused while recording.
    public func setTriggerPreroll(_ wanted: Bool) throws(RecorderError) {
        guard wanted != triggerPrerollWanted else { return }
        if let recordingID { throw RecorderError(.busy, "recording \(recordingID): the trigger pre-roll changes after record stop") }
        trigger.wanted = wanted
        do throws(RecorderError) { try apply(settings) } catch {
            trigger.wanted = !wanted
            try? apply(settings)
            throw error
        }
    }

    /// Feeds the live stream (docs/stream.md) with the encoder's packets from now on: the recording's
    /// while one runs, else those of an encoder at `bitrateBitsPerSecond` (the camera's video stream
    /// is asked for now). Nil stops feeding it and gives the video stream back when nothing else
    /// needs it. Needs the camera open.
    public func setStream(_ sink: (any EncodedVideoSink)?, bitrateBitsPerSecond: Int) throws(RecorderError) {
        let previous = stream
        stream = LiveStreamFeed(sink: sink, bitrateBitsPerSecond: bitrateBitsPerSecond)
        if sink != nil {
            do throws(RecorderError) { try arm(restabilize: false) } catch {
                stream = previous
                throw error
            }
        }
        service?.setStream(sink, bitrateBitsPerSecond: bitrateBitsPerSecond)
        if sink == nil { disarm() }
    }

    /// True while the live stream takes the encoder's packets.
    public var isStreaming: Bool { stream.sink != nil }

    /// Gives the video stream back when nothing needs it (no recording, no pre-record, no live stream).
    private func disarm() {
        guard recordingID == nil, settings.prerecordSeconds == 0, stream.sink == nil else { return }
        stabilization.drop()
        guard let camera, camera.videoStreamRequest != nil else { return }
        do { try camera.requestVideoStream(nil) } catch {
            emit(.streamFailure(reason: "camera: cannot restart streaming without the video stream: \(error)"))
        }
    }

    /// Arms a shot's `record start` (`starts`) or `record stop` for `instant`: a start asks for the
    /// video stream now, and `begin` (the supervisor's `record start`) runs on the first frame whose
    /// exposure starts at or after the instant, which is then the recording's first; a stop stops on
    /// that frame, which is not recorded. `ended` gets the outcome, with that frame's exposure start.
    public func armShot(instant: ExposureInstant, starts: Bool, begin: @escaping () throws(RecorderError) -> RecordingStarted,
                        ended: @escaping (Result<ArmedShotOutcome, RecorderError>) -> Void) throws(RecorderError) {
        if armedShot != nil { throw RecorderError(.busy, "a shot's record start or stop is already armed") }
        if starts {
            if let recordingID { throw RecorderError(.busy, "already recording \(recordingID); record stop first") }
            if settings.prerecordSeconds > 0 {
                throw RecorderError(.notYet, "a shot's record start with \(settingKeys.prerecord) set is not built yet (the file would begin before the instant); set \(settingKeys.prerecord) 0")
            }
            guard let camera, camera.isStreaming else { throw RecorderError(.busy, "the camera is not streaming") }
            try arm(restabilize: false)
        } else if recordingID == nil {
            throw RecorderError(.usage, "not recording; a shot's record stop needs a recording")
        }
        armedShot = ArmedShot(instant: instant, starts: starts, begin: begin, ended: ended)
    }

    /// A stop began: a shot's record start or stop still waiting for its instant fails now (a
    /// recording in progress is finalised by the stop itself).
    public func cancelArmedShot(reason: String) {
        guard let shot = armedShot else { return }
        armedShot = nil
        if shot.starts { disarm() }
        shot.ended(.failure(RecorderError(.busy, reason)))
    }

    /// True while a shot's record start or stop waits for its instant.
    public var hasArmedShot: Bool { armedShot != nil }

    /// Runs an armed shot's action on the first frame at or after its instant; false when that frame
    /// must not be recorded (a stop).
    private func runArmedShot(on completed: CompletedRequest) -> Bool {
        guard let shot = armedShot, completed.isComplete, shot.instant.admits(completed) else { return true }
        armedShot = nil
        let start = shot.instant.exposureStart(of: completed)
        do throws(RecorderError) {
            let started: RecordingStarted?, recording: String
            if shot.starts { let begun = try shot.begin(); started = begun; recording = begun.id } else { started = nil; recording = try stop() }
            shot.ended(.success(ArmedShotOutcome(started: started, recordingID: recording, exposureStartNanoseconds: start.wallClockNanoseconds,
                                                 fromFrameWallClock: start.fromFrameWallClock)))
        } catch {
            if shot.starts { disarm() }
            shot.ended(.failure(error))
            return false
        }
        return shot.starts
    }

    /// `record start`: arms the camera, names the file and starts writing. Returns what started.
    /// `shot`: the shot at a shared instant that starts it (recorded in its sidecar).
    public func start(capture: VideoCaptureState, axisMapping: AxisMapping?, readoutMilliseconds: Double?,
                      shot: VideoShot? = nil, trigger: VideoTrigger? = nil) throws(RecorderError) -> RecordingStarted {
        if let recordingID { throw RecorderError(.busy, "already recording \(recordingID); record stop first") }
        guard let camera, camera.isStreaming else { throw RecorderError(.busy, "the camera is not streaming") }
        try arm(restabilize: false)
        guard case .started(let service, let storage) = encoding else {
            throw RecorderError(.unsupported, "captures storage cannot stream video files")
        }
        let folder = naming.folder(for: Date())
        let id = nextID(in: folder, storage: storage)
        var request = RecordingRequest(id: id, folder: folder, capture: capture, axisMapping: axisMapping,
                                       frameReadoutMilliseconds: readoutMilliseconds,
                                       firmwareVersion: "tripod \(TripodVersion.firmware)",
                                       frameSize: camera.videoStream?.size ?? camera.processedStreamSize)
        request.shot = shot
        request.trigger = trigger
        // A triggered start with a pre-roll hands its frames over at once: no speed measurement
        // (it would close the queue), the settings' preset.
        if trigger != nil, self.trigger.frames != nil { request.frameSize = nil }
        do throws(VideoError) { try service.start(request) } catch {
            disarm()
            throw RecorderError(error.kind == .state ? .busy : .device, error.message)
        }
        recordingID = id
        submitFailureReported = false
        // The pre-roll: the frames from trigger − prerollFrames on (the trigger frame is already here:
        // the recorder gets each frame before the streaming frame's handlers).
        if let trigger, var held = self.trigger.frames {
            let first = trigger.sequence >= UInt64(trigger.prerollFrames) ? trigger.sequence - UInt64(trigger.prerollFrames) : 0
            for frame in held.take(from: first) { service.submit(frame) }
            self.trigger.frames = held
        }
        motion.logsMotion = axisMapping != nil
        // Without pre-record nothing was forwarded yet: the log starts with the last second.
        if settings.prerecordSeconds == 0 { service.submitMotion(motion.recentMotion) }
        work.begin(Self.workReason)
        onRecordingChange(true)
        let started = RecordingStarted(id: id, file: "\(folder)/\(id).\(settings.container.fileExtension)",
                                       size: camera.videoStream?.size ?? camera.processedStreamSize ?? camera.activeFormat.format.size,
                                       framesPerSecond: effectiveSettings().captureFramesPerSecond, note: camera.videoStreamNote)
        emit(.started(started))
        return started
    }

    /// `record stop` (and a supervisor stop): the queued frames are encoded and the file finalised;
    /// `record.stopped` follows when it is. Returns the id of the recording stopping.
    public func stop() throws(RecorderError) -> String {
        guard let recordingID, let service else { throw RecorderError(.usage, "not recording; record start first") }
        guard motion.pendingStop == nil else { return recordingID }
        // The held look-ahead belongs to this recording; a pre-record ring goes on with a new one.
        handOverHeldFrames(restart: settings.prerecordSeconds > 0)
        if let until = motion.uncoveredFrameEnd {
            let bound = LoopBound(self, loop: loop)
            motion.pendingStop = (until, loop.schedule(after: Self.motionCoverWait) { bound.value.finishStop() })
        } else {
            do throws(VideoError) { try service.stop() } catch { throw RecorderError(.device, error.message) }
        }
        return recordingID
    }

    /// Ends a stop that waited for the IMU (its samples reached the last frame, or the wait is over).
    private func finishStop() {
        guard motion.endPendingStop() else { return }
        do throws(VideoError) { try service?.stop() } catch {
            emit(.recordingFailure(recordingID: recordingID, reason: error.message))
        }
    }

    /// The camera went away: a recording ends now with what came (file finished, `record.failed`
    /// saying why) rather than waiting for frames that may never come.
    public func cameraDisconnected() {
        if let shot = armedShot {
            armedShot = nil
            if shot.starts { disarm() }
            shot.ended(.failure(RecorderError(.device, "camera disconnected before the shot's instant")))
        }
        guard let recordingID, let service else { return }
        // A waiting stop (its frames already handed over) ends now; else the held frames go first.
        if !motion.endPendingStop() { handOverHeldFrames(restart: settings.prerecordSeconds > 0) }
        do throws(VideoError) {
            try service.stop(reason: VideoError(.sourceLost, "camera disconnected during recording \(recordingID)"))
        } catch {
            emit(.recordingFailure(recordingID: recordingID, reason: error.message))
        }
    }

    /// A completed streaming request: its video stream (YUV420), or the processed stream when the
    /// camera has no video stream (converted on the encoder queue). Never blocks.
    public func frameArrived(_ completed: CompletedRequest) {
        guard runArmedShot(on: completed) else { return }
        guard let service, let camera, motion.pendingStop == nil else { return }
        motion.newestFrameEnd = completed.sensorTimestamp
            + .microseconds(Int64(completed.metadata[ControlName.exposureTime]?.doubleValue ?? 0))
        let role: StreamRole = camera.videoStream != nil ? .videoRecording : camera.processedRole
        do throws(VideoError) {
            if case .stabilizing(let stabilizer) = stabilization.state {
                guard let frame = try RecordingService.frame(of: completed, role: role) else { return }
                for ready in stabilizer.push(frame) { deliver(ready, to: service) }
            } else if trigger.frames != nil {
                if let frame = try RecordingService.frame(of: completed, role: role) { deliver(frame, to: service) }
            } else {
                try service.submit(completed, role: role)
            }
        } catch {
            guard isRecording, !submitFailureReported else { return }
            submitFailureReported = true
            emit(.recordingFailure(recordingID: recordingID, reason: error.message))
        }
    }

    /// A frame ready to encode: kept in the trigger pre-roll when there is one, and encoded while
    /// recording or streaming.
    private func deliver(_ frame: VideoFrame, to service: RecordingService) {
        if trigger.frames != nil { trigger.frames?.append(frame) }
        if trigger.frames == nil || isRecording || stream.sink != nil { service.submit(frame) }
    }

    /// A still kept during a recording (a `capture` or a bracket's frame): the video's sidecar
    /// lists it. Ignored when not recording.
    public func stillKept(_ still: VideoStill) {
        guard isRecording else { return }
        service?.noteStill(still)
    }

    /// IMU samples (bias-corrected) for the video's Gyroflow log. The last second is kept here (a
    /// recording's log starts with it); the service gets them only while frames are taken (a
    /// recording or a pre-record ring): otherwise nothing drains its motion inbox, and every IMU
    /// batch would trim a full 65,536-sample buffer. A waiting stop ends once they reach its frame.
    public func motionArrived(_ samples: [IMUSample]) {
        guard let newest = samples.last?.timestamp else { return }
        motion.keep(samples, newest: newest)
        guard isRecording || settings.prerecordSeconds > 0 else { return }
        service?.submitMotion(samples)
        if let pending = motion.pendingStop, newest >= pending.coverUntil { finishStop() }
    }

    private func handle(_ event: RecordingEvent) {
        switch event {
        case .fileClosed(let sidecar):
            emit(.fileClosed(sidecar))
        case .stopped(let id, let error):
            guard id == recordingID else { return }
            recordingID = nil
            motion.endPendingStop()  // ended by itself (a fault) while a stop waited
            emit(.stopped(id: id, status: service?.status, error: error))
            disarm()
            onRecordingChange(false)
            work.end(Self.workReason)
        case .encoderFallback(let note):
            emit(.encoderFallback(note: note))
        }
    }

    /// The next free `VID_NNNNNN` in the date folder (numbers continue after the highest there).
    private func nextID(in folder: String, storage: any Storage) -> String {
        let names = (try? storage.list(folder)) ?? []
        let highest = names.compactMap { naming.sequence(inFileName: $0) }.max() ?? 0
        return naming.bracketID(highest + 1)
    }

    /// Fields for `status`.
    public func statusFields() -> [(String, String)] {
        let status: RecordingStatus
        switch encoding {
        case .unavailable: return [("recording", "unavailable")]
        case .notStarted: return [("recording", "off")]
        case .started(let service, _): status = service.status
        }
        var fields: [(String, String)] = []
        if let id = recordingID {
            fields.append(("recording", id))
            fields.append(("recording.duration", ValueText.number((status.durationSeconds * 10).rounded() / 10) + "s"))
            fields.append(("recording.frames", String(status.framesWritten)))
            fields.append(("recording.dropped", String(status.droppedFrames)))
            fields.append(("recording.bytes", String(status.bytesWritten)))
        } else {
            fields.append(("recording", "off"))
        }
        if settings.prerecordSeconds > 0 { fields.append(("prerecord.bytes", String(status.prerecordBytes))) }
        if let encoder = status.encoder { fields.append(("video.encoder", encoder)) }
        if let error = status.lastError { fields.append(("recording.error", error)) }
        return fields
    }
}

extension VideoRecorder {
    /// The console's keys of the settings the recorder's refusals name (the pre-record time, the
    /// frame rate, the trigger's action, the live stream), given by the edge: the domain never
    /// spells a key.
    public struct SettingKeys: Sendable {
        public let prerecord: String
        public let framesPerSecond: String
        public let triggerAction: String
        public let stream: String

        public init(prerecord: String, framesPerSecond: String, triggerAction: String, stream: String) {
            self.prerecord = prerecord; self.framesPerSecond = framesPerSecond
            self.triggerAction = triggerAction; self.stream = stream
        }
    }
}

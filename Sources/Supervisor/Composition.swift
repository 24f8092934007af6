import Console
import Hardware
import Motion
import Stabilization
import Camera
import Capture
import Recording
import Settings
import Video

/// The composition: the services made once, from `init`, and wired service to service; and the
/// camera, attached to every holder in one place. Data flows one way: services report events out
/// and never call back into the supervisor.
extension Supervisor {
    /// Makes the capture service and the recorder and wires them to each other and to video
    /// stabilization. Called once, from `init`, before the commands are registered.
    func composeServices() {
        let bound = self.bound
        // With a shutter button the camera streams stills from the start: the first press reconfigures nothing.
        let capture = CaptureService(loop: loop, storage: devices.storage, work: work, wantsStillsFromStart: devices.shutter != nil,
                                     serialNumber: devices.serialNumber,
                                     readBracket: BracketCommandParser.read, captureFormatKey: SettingsTable.captureFormat.key,
                                     emit: { event in bound.value?.broadcast(ConsoleEvent(event)) },  // events flow out to the consoles, worded
                                     onButtonEvent: { event in bound.value?.handle(buttonEvent: event) })
        capture.captureFormat = typed.captureFormat
        capture.dngCompression = typed.dngCompression
        let recorder = VideoRecorder(loop: loop, storage: devices.storage, work: work, boardEncoder: devices.board.video?.encoder,
                                     speedProbe: devices.measuresEncoderSpeed ? X264SpeedProbe() : nil, settingKeys: .table,
                                     emit: { event in bound.value?.broadcast(ConsoleEvent(event)) })
        // The LED rests on the recording pattern while one runs, and a still kept during a
        // recording is listed in the video's sidecar.
        recorder.onRecordingChange = { [weak capture] recording in
            capture?.restingPattern = recording ? .recording : .ready
        }
        capture.attachFrameKept { [weak recorder] id, frame, request in
            recorder?.stillKept(VideoStill(bracketID: id, frame: frame, sequence: request.sequence,
                                           sensorTimestampNanoseconds: request.sensorTimestamp.nanoseconds))
        }
        // The recorder's stabilizer comes from video stabilization, which pauses its ScalerCrop
        // while the recorder crops its own frames (told, not asked: no pointer back).
        let videoStabilizer = self.videoStabilizer
        recorder.makeStabilizer = { [weak videoStabilizer] in videoStabilizer?.makeRecordingStabilizer() }
        recorder.onStabilizerChange = { [weak videoStabilizer, weak recorder] in
            videoStabilizer?.recordingCropsItsOwnFrames = recorder?.stabilizesInSoftware ?? false
            videoStabilizer?.restart()
        }
        captureService = capture
        self.recorder = recorder
        timelapse = Timelapse(loop: loop, capture: capture, wallClock: services.wallClock,
                              resolveAction: { words throws(CaptureError) in
                                  guard let supervisor = bound.value else { throw CaptureError(.unsupported, "stopped") }
                                  do throws(ConsoleError) { return try supervisor.timelapseAction(words) } catch { throw CaptureError(error) }
                              },
                              persist: { state in bound.value?.persistTimelapse(state) },
                              emit: { event in bound.value?.broadcast(ConsoleEvent(event)) })
        timelapse?.rampRateEVPerHour = typed.timelapseRampRateEVPerHour
        videoHDR.recorder = recorder  // the sensor's HDR does not switch during a recording
        videoHDR.onEvent = { event in bound.value?.videoHDREvent(event) }
        videoStabilizer.onEvent = { event in
            if case .unavailable(let why) = event { bound.value?.log.warning(why) }
        }
    }

    /// The one place the camera is attached: the supervisor, captures, recording and video HDR
    /// hold this controller (video stabilization gets it with the stabilization service). Nil lets
    /// go of it everywhere (the sensor-HDR switch needs the device released).
    func attachCamera(_ controller: CameraController?) {
        if let old = camera, old !== controller { old.close() }  // a replaced controller lets go of its device
        camera = controller
        captureService?.camera = controller
        recorder?.camera = controller
        if let controller { videoHDR.attach(controller) }
    }

    /// The motion tracker, once the IMU runs: the recorder reads the orientation at each frame's
    /// time, and each saved bracket gets a gyro log.
    func attachMotion(_ tracker: MotionTracker) {
        recorder?.orientationAt = { [weak tracker] time in tracker?.orientation(at: time) }
        captureService?.attachGyroLogs(GyroLogMaker(motion: tracker, orientation: devices.board.imu.orientation, log: log))
    }

    /// Stabilization, once it runs: each capture asks it for its gate (lens for brackets, still for
    /// single frames), and the streaming frames' crop planner gets the camera.
    func attachStabilization(_ service: Stabilization) {
        captureService?.attachFrameGates { bracket in service.makeGate(kind: bracket ? .bracket : .single) }
        if let camera { videoStabilizer.attach(camera: camera, stabilization: service, motion: motion) }
    }
}

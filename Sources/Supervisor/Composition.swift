import Console
import Hardware
import Lifecycle
import Motion
import Stabilization
import Camera
import Capture
import Recording
import Settings
import Video

/// The supervisor as the services' callbacks see it: weak (the services it owns keep these
/// callbacks, so a strong reference would keep a stopped supervisor alive) and attached once its
/// `init` has made every service; read on the loop only.
typealias SupervisorLink = LateBound<Supervisor>

/// The composition: the services made once, in the supervisor's `init`, and wired service to
/// service through their initialisers. Data flows one way: services report events out (through
/// the link, worded at the edge) and never call back into the supervisor.
struct ComposedServices {
    /// The camera's one owner: the services below read the controller from it, and only the
    /// supervisor attaches and releases it (`attachCamera`, `releaseCamera`).
    let camera = CameraSlot()
    let capture: CaptureService
    let recorder: VideoRecorder
    let timelapse: Timelapse
    let videoHDR: VideoHDRService
    let videoStabilizer: VideoStabilizationService
    /// The stabilization service's one owner: filled when the camera starts (StabilizationWiring.swift).
    let stabilization = StabilizationSlot()
    /// Where the state that outlives a restart is written: the state directory's writer, when one is usable.
    let stateKeeping: StateKeeping
    let triggers = TriggerState()
    /// The supervisor, for the services' callbacks (weak; attached at the end of its `init`).
    let link: SupervisorLink

    /// `settings`: the store whose settings in force the capture services read (never copied in).
    init(link: SupervisorLink, devices: BoardDevices, work: WorkTracker, services: SupervisorServices, motion: MotionTracker, settings: SettingsStore) {
        self.link = link
        let loop = link.loop
        let camera = self.camera
        stateKeeping = services.state.map { .stateDirectory(StateWriter(store: $0, loop: loop)) } ?? .noStateDirectory
        // What video stabilization cannot do goes to the log.
        let videoStabilizer = VideoStabilizationService(motion: motion, crop: camera, stabilization: stabilization) { event in
            if case .unavailable(let why) = event { link.value?.log.warning(why) }
        }
        self.videoStabilizer = videoStabilizer
        // The capture services read the settings in force through this view.
        let inForce = InForceCaptureSettings(settings)
        // The shutter button, the half press and the LED, where the board has them. With a shutter
        // button the camera streams stills from the start: the first press reconfigures nothing.
        let capture = CaptureService(loop: loop, camera: camera, storage: devices.storage, work: work, settings: inForce,
                                     controls: CaptureControls(shutter: devices.shutter, halfPress: devices.halfPress, led: devices.led),
                                     serialNumber: devices.serialNumber,
                                     readBracket: BracketCommandParser.read, captureFormatKey: SettingsTable.captureFormat.key,
                                     emit: { event in link.value?.broadcast(ConsoleEvent(event)) },  // events flow out to the consoles, worded
                                     onButtonEvent: { event in link.value?.handle(buttonEvent: event) },
                                     ledFailed: { error in link.value?.log.warning("status LED: \(error.message); continuing without it") })
        // The LED rests on the recording pattern while one runs. The recorder's stabilizer comes
        // from video stabilization, which pauses its ScalerCrop while the recorder crops its own
        // frames (told, not asked: no pointer back).
        let recorder = VideoRecorder(loop: loop, camera: camera, storage: devices.storage, work: work, boardEncoder: devices.board.video?.encoder,
                                     speedProbe: devices.measuresEncoderSpeed ? X264SpeedProbe() : nil, settingKeys: .table,
                                     emit: { event in link.value?.broadcast(ConsoleEvent(event)) },
                                     onRecordingChange: { [weak capture] recording in
                                         capture?.restingPattern = recording ? .recording : .ready
                                     },
                                     makeStabilizer: { [weak videoStabilizer] in videoStabilizer?.makeRecordingStabilizer() },
                                     stabilizerChanged: { [weak videoStabilizer] inSoftware in
                                         videoStabilizer?.recordingCropsItsOwnFrames = inSoftware
                                         videoStabilizer?.restart()
                                     })
        // A still kept during a recording is listed in the video's sidecar.
        capture.attachFrameKept { [weak recorder] id, frame, request in
            recorder?.stillKept(VideoStill(bracketID: id, frame: frame, sequence: request.sequence,
                                           sensorTimestampNanoseconds: request.sensorTimestamp.nanoseconds))
        }
        timelapse = Timelapse(loop: loop, capture: capture, settings: inForce, wallClock: services.wallClock,
                              resolveAction: { words throws(CaptureError) in
                                  guard let supervisor = link.value else { throw CaptureError(.unsupported, "stopped") }
                                  do throws(ConsoleError) { return try supervisor.timelapseAction(words) } catch { throw CaptureError(error) }
                              },
                              persist: { state in link.value?.persistTimelapse(state) },
                              emit: { event in link.value?.broadcast(ConsoleEvent(event)) })
        // The sensor's HDR does not switch during a recording.
        videoHDR = VideoHDRService(camera: camera, settingKey: SettingsTable.videoHDR.key, recordingID: { [weak recorder] in recorder?.recordingID },
                                   onEvent: { event in link.value?.videoHDREvent(event) })
        self.capture = capture
        self.recorder = recorder
    }
}

extension Supervisor {
    /// The stages of a camera controller's frames (FramePipeline.swift), in order: the recorder
    /// (every frame, a bracket's too: a still during a recording leaves no gap), the bracket stage,
    /// then on the streaming frames the capture waiting for a first frame, the video stabilizer,
    /// the HDR meter, the viewfinder and preview, and the trigger.
    func makeFramePipeline() -> FramePipeline {
        let bound = self.bound
        return FramePipeline(
            everyFrame: [FrameObserver("recorder") { [weak recorder = self.recorder] frame in recorder?.frameArrived(frame.request) }],
            streaming: [
                FrameObserver("capture") { [weak captureService = self.captureService] _ in captureService?.frameArrived() },
                FrameObserver("video stabilizer") { [weak videoStabilizer = self.videoStabilizer] frame in
                    videoStabilizer?.frameArrived(frameTime: frame.state.sensorTimestamp)
                },
                FrameObserver("HDR meter") { [weak videoHDR = self.videoHDR] frame in videoHDR?.frameArrived(frame.request) },
                FrameObserver("viewfinder and preview") { frame in bound.value?.previewFrameArrived(frame) },
                FrameObserver("trigger") { frame in bound.value?.triggerFrameArrived(frame.request) },
            ])
    }

    /// A streaming frame to show: the viewfinder and the remote's preview get it (stabilized).
    func previewFrameArrived(_ frame: PipelineFrame) {
        guard let shown = previewFrame(frame.request, frame.state) else { return }
        showOnViewfinder(shown, frame.state)
        remote?.preview.offer(shown, sensorTimestampNanoseconds: frame.state.sensorTimestamp.nanoseconds)
    }

    /// The one place the camera is attached: the camera's slot, which captures, recording, video
    /// HDR and video stabilization read, gets this controller (a replaced one is closed, letting
    /// go of its device), and video HDR starts over for it.
    func attachCamera(_ controller: CameraController) {
        cameraSlot.attach(controller)
        videoHDR.cameraAttached()
    }

    /// Closes the camera and lets go of it everywhere at once (the sensor-HDR switch needs the
    /// device released) until the next `attachCamera`.
    func releaseCamera(reason: String) {
        cameraSlot.release(reason: reason)
    }

    /// The IMU's motion tracker (from `init`, when the board has an IMU): each saved bracket gets a
    /// gyro log. (The recorder's stabilizers read the orientation through video stabilization,
    /// which has the tracker.)
    func attachMotion(_ tracker: MotionTracker) {
        captureService.attachGyroLogs(GyroLogMaker(motion: tracker, orientation: devices.board.imu.orientation, log: log))
    }

    /// Stabilization, once it runs (its slot filled): each capture asks it for its gate (lens for
    /// brackets, still for single frames), and the streaming frames' crop planner starts for it.
    func attachStabilization(_ service: Stabilization) {
        captureService.attachFrameGates { bracket in service.makeGate(kind: bracket ? .bracket : .single) }
        videoStabilizer.restart()
    }
}

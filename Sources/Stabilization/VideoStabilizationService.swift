import Camera
import Hardware
import Motion

/// Video stabilization of the streaming frames, the one owner of its crop planning: the planner
/// for the active mode and format (none when off), fed each frame's orientation, whose newest crop
/// rides on the camera's next requests as ScalerCrop. While a recording crops its own frames
/// (`RecordingStabilizer`, made here too) the ScalerCrop pauses, so nothing is cropped twice.
/// What it cannot do is said as an event. Loop-confined.
public final class VideoStabilizationService {
    /// `motion`: the IMU's tracker (one that nothing feeds without an IMU: then video
    /// stabilization is never active, and nothing is planned); `crop`: the ScalerCrop on the
    /// camera's streaming requests (the camera's owner gives it); `stabilization`: the
    /// stabilization service's slot (filled when the camera starts; `restart` then).
    public init(motion: MotionTracker, crop: any StreamingCrop, stabilization: StabilizationSlot,
                onEvent: @escaping (Event) -> Void = { _ in }) {
        self.motion = motion
        self.crop = crop
        self.stabilizationSlot = stabilization
        self.onEvent = onEvent
    }

    public enum Event: Equatable {
        /// Frames stay uncropped, and why (a line for the journal).
        case unavailable(String)
    }

    /// Where events go (the supervisor's wiring logs them).
    private let onEvent: (Event) -> Void
    /// True while a recording crops its own frames (`RecordingStabilizer`): the ScalerCrop pauses.
    /// The wiring sets it from the recorder's `stabilizesInSoftware`, then calls `restart`.
    public var recordingCropsItsOwnFrames = false
    /// The crop planner of the streaming frames; nil while video stabilization is off or paused.
    public private(set) var planner: EISCropPlanner?
    /// The ScalerCrop on the attached camera's streaming requests.
    private let crop: any StreamingCrop
    /// The stabilization service, once the camera has started.
    private let stabilizationSlot: StabilizationSlot
    private var stabilization: Stabilization? { stabilizationSlot.service }
    /// The IMU's motion: each frame's orientation.
    private let motion: MotionTracker
    /// What the previews show: the streaming frames as they come, or warped by a stabilizer.
    private var preview = PreviewState.unwarped

    /// What `previewFrame` gives the previews.
    private enum PreviewState {
        /// The streaming frames as they come: no recording warps its own frames, the mode is off,
        /// or the stabilizer could not be made (tried again on the next frame).
        case unwarped
        /// Warped along the causal path, framed with the recording mode's `margin`.
        case warped(PreviewStabilizer, margin: Double)
    }

    /// A new crop planner for the active video stabilization mode and format (none when off, or
    /// while a recording crops its own frames); the ScalerCrop in force is dropped meanwhile.
    public func restart() {
        planner = nil
        crop.cropStreaming(to: nil)
        guard let stabilization, stabilization.video.active != .off else { return }
        if recordingCropsItsOwnFrames { return }
        guard crop.canCropStreaming else {
            onEvent(.unavailable("video stabilization: the camera has no ScalerCrop control; frames stay uncropped"))
            return
        }
        do throws(StabilizationError) {
            planner = try stabilization.makeCropPlanner()
        } catch {
            onEvent(.unavailable("video stabilization: \(error.message)"))
        }
    }

    /// The frame the previews show for a streaming frame: while a recording warps its own frames,
    /// the frame warped along the causal path (`PreviewStabilizer`); otherwise `buffer` itself
    /// (the ScalerCrop, when on, already stabilized it).
    public func previewFrame(_ buffer: FrameBuffer, sensorTimestamp: MonotonicTime, exposureMicroseconds: Double) -> FrameBuffer {
        guard recordingCropsItsOwnFrames, let stabilization, stabilization.video.active != .off else {
            preview = .unwarped
            return buffer
        }
        let margin = RotationPathPlanner.margin(for: stabilization.video.active)
        if case .warped(let stabilizer, let shownMargin) = preview, shownMargin == margin {
            return stabilizer.frame(for: buffer, sensorTimestamp: sensorTimestamp, exposureMicroseconds: exposureMicroseconds)
        }
        do throws(StabilizationError) {
            let stabilizer = try PreviewStabilizer(margin: margin, geometry: { [weak stabilization] in stabilization?.warpGeometry(frameSize: $0) },
                                                   orientationAt: { [weak motion = self.motion] in motion?.orientation(at: $0) })
            preview = .warped(stabilizer, margin: margin)
            return stabilizer.frame(for: buffer, sensorTimestamp: sensorTimestamp, exposureMicroseconds: exposureMicroseconds)
        } catch {
            preview = .unwarped
            return buffer
        }
    }

    /// Every streaming frame: feeds the orientation at `frameTime` (the frame's sensor timestamp)
    /// to the planner and puts its newest crop on the next requests.
    public func frameArrived(frameTime: MonotonicTime) {
        guard let planner, let stabilization else { return }
        guard let planned = planner.push(frameTime: frameTime, orientation: motion.orientation).last,
              let rect = stabilization.scalerCrop(for: planned) else { return }
        // Zoom crops within the stabilized field about its centre, keeping the shift whole.
        crop.cropStreaming(to: rect)
    }

    /// Video stabilization of a recording's own frames (each warped from the orientations of its
    /// own exposure); nil when the mode is off (always, without an IMU) or before a camera.
    public func makeRecordingStabilizer() -> RecordingStabilizer? {
        guard let stabilization else { return nil }
        do throws(StabilizationError) {
            return try stabilization.makePathPlanner().map { planner in
                RecordingStabilizer(planner: planner, geometry: { [weak stabilization] size in stabilization?.warpGeometry(frameSize: size) },
                                    orientationAt: { [weak motion = self.motion] time in motion?.orientation(at: time) })
            }
        } catch {
            onEvent(.unavailable("video stabilization of the recording: \(error.message)"))
            return nil
        }
    }
}

import Camera
import Console
import Hardware
import Motion
import Stabilization

extension Supervisor {
    /// Creates the stabilization service over the motion tracker (a tracker with no samples when the
    /// board has no IMU, so every capture reports Unavailable) and turns its changes into events.
    func startStabilization(sensor: SensorDescription, format: FormatSelection) {
        let tracker = motion ?? MotionTracker(deviceName: "none")
        let health = runtime.imuHealth ?? .unavailable(reason: "this board has no IMU")
        let service = Stabilization(tracker: tracker, sensor: sensor, loop: loop, imuHealth: health)
        service.formatChanged(format)
        let bound = self.bound
        service.onEvent = { event in
            let s = bound.value
            s.broadcast(ConsoleEvent(event.consoleName, event.consoleFields))
            if let update = event.settingUpdate { s.settings[update.key] = update.value }
            if case .videoActive = event { s.videoStabilizationChanged() }
        }
        stabilization = service
        // Wiring: each capture asks stabilization for its gate (lens for brackets, still for single frames).
        captureService?.makeFrameGate = { bracket in service.makeGate(kind: bracket ? .bracket : .single) }
        restartVideoStabilization()
    }

    /// The video stabilization mode or the format changed: the pre-record ring's stabilizer and the
    /// viewfinder's crop planner start again for it.
    func videoStabilizationChanged() {
        recorder?.videoStabilizationChanged()
        restartVideoStabilization()
    }

    /// A new crop planner for the active video stabilization mode and format (none when off): the
    /// crop then rides on every streaming request as ScalerCrop.
    func restartVideoStabilization() {
        videoCropPlanner = nil
        camera?.streamingControls[ControlName.scalerCrop] = nil
        guard let stabilization, stabilization.video.active != .off else { return }
        // A recording crops its own frames (Recording/RecordingStabilizer.swift): not twice.
        if recorder?.stabilizesInSoftware == true { return }
        guard camera?.device.controlInfo[ControlName.scalerCrop] != nil else {
            log.warning("video stabilization: the camera has no ScalerCrop control; frames stay uncropped")
            return
        }
        do throws(StabilizationError) {
            videoCropPlanner = try stabilization.makeCropPlanner()
        } catch {
            log.warning("video stabilization: \(error.message)")
        }
    }

    /// Feeds the frame's orientation to the crop planner and puts its newest crop on the next requests.
    func stabilizeVideo(frameTime: MonotonicTime) {
        guard let planner = videoCropPlanner, let stabilization, let motion else { return }
        guard let crop = planner.push(frameTime: frameTime, orientation: motion.orientation).last,
              let rect = stabilization.scalerCrop(for: crop) else { return }
        // Zoom crops within the stabilized field about its centre, keeping the shift whole.
        camera?.streamingControls[ControlName.scalerCrop] = .rectangle(camera?.zoomed(rect) ?? rect)
    }
}

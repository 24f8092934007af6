import Camera
import Console
import Hardware
import Motion
import Stabilization

extension Supervisor {
    /// Creates the stabilization service over the motion tracker (one that nothing feeds when the
    /// board has no IMU, so every capture reports Unavailable) and turns its changes into events.
    /// The camera's first format is its starting point: no event for it.
    func startStabilization(sensor: SensorDescription, format: FormatSelection) {
        let health = runtime.imuHealth ?? .unavailable(reason: "this board has no IMU")
        let bound = self.bound
        let service = Stabilization(tracker: motion, sensor: sensor, loop: loop, imuHealth: health, format: format) { event in
            guard let s = bound.value else { return }
            s.broadcast(ConsoleEvent(event.consoleName, event.consoleFields))
            // A forced off is stored, so `get` and `save` say off (the one place the event becomes a setting).
            if case .lensEnabled(false, forced: true) = event {
                _ = try? s.settings.update(origin: .forcedOff) { $0.stabilization.lens = false }
            }
            if case .videoActive = event { s.videoStabilizationChanged() }
        }
        composed.stabilization.start(service)
        attachStabilization(service)
    }

    /// The video stabilization mode or the format changed: the pre-record ring's stabilizer and the
    /// streaming frames' crop planner start again for it.
    func videoStabilizationChanged() {
        recorder.videoStabilizationChanged()
        videoStabilizer.restart()
    }

    /// The processed frame the previews (viewfinder, remote) show: stabilized while a recording
    /// warps its own frames (`VideoStabilizationService.previewFrame`), else as it came. Nil
    /// when the frame has no processed stream.
    func previewFrame(_ completed: CompletedRequest, _ frame: FrameState) -> FrameBuffer? {
        guard let camera, let buffer = completed.buffers[camera.processedRole] else { return nil }
        let exposure = completed.metadata[ControlName.exposureTime]?.doubleValue ?? 0
        return videoStabilizer.previewFrame(buffer, sensorTimestamp: frame.sensorTimestamp, exposureMicroseconds: exposure)
    }
}

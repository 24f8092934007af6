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
        }
        stabilization = service
    }

    /// The gate a capture runs its frames through: lens stabilization for brackets, automatic still
    /// stabilization for single frames; the null gate when there is no camera yet.
    func makeFrameGate(bracket: Bool) -> any BracketFrameGate {
        guard let stabilization else { return UngatedFrames() }
        return stabilization.makeGate(kind: bracket ? .bracket : .single)
    }
}

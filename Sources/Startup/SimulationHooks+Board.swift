import Hardware
import SimulatedHardware
import Supervisor

extension SimulationHooks {
    /// The console's hooks into the simulated parts a board has: the IMU (`sim motion`), the
    /// cameras (`sim scene`, `sim pose`, `sim light`, `sim object`), the button (`button ...`) and
    /// the PIR line (`sim pir`); nil when nothing is simulated.
    static func of(imu: SimulatedIMU?, cameras: SimulatedCameraProvider?, button: SimulatedButton?,
                   pir: SimulatedInputLine?, loop: any EventLoop) -> SimulationHooks? {
        guard imu != nil || cameras != nil || button != nil || pir != nil else { return nil }
        return SimulationHooks(setMotion: imu.map(motionHook), button: button.map(buttonHook),
                               setScene: cameras.map(sceneHook), changeLight: cameras.map(lightHook),
                               crossObject: cameras.map(crossHook), pir: pir.map { pirHook($0, loop: loop) },
                               setPose: cameras.map(poseHook))
    }

    private static func motionHook(_ imu: SimulatedIMU) -> (String, Double?) throws -> String {
        { name, amplitude in
            try imu.setMotion(name, amplitudeDegreesPerSecond: amplitude)
            return name
        }
    }

    private static func buttonHook(_ button: SimulatedButton) -> (String, Duration?) throws -> Void {
        { action, duration in
            switch action {
            case "press": _ = button.press()
            case "hold": _ = button.hold(milliseconds: Int((duration ?? .milliseconds(1000)).nanoseconds / 1_000_000))
            case "half": try button.toggleHalfPress()
            default: throw HardwareError(.invalidArgument, "button \(action): use press, hold <ms> or half")
            }
        }
    }

    /// The scene changes for cameras opened later and for the one open now.
    private static func sceneHook(_ cameras: SimulatedCameraProvider) -> (String) throws -> String {
        { text in
            let words = text.split(separator: " ").map(String.init)
            let scene = try cameras.scene.parsed(words)
            cameras.scene = scene
            if let camera = cameras.openedCamera { camera.scene = try camera.scene.parsed(words) }
            return scene.name
        }
    }

    private static func poseHook(_ cameras: SimulatedCameraProvider) -> (String) throws -> String {
        { text in
            let pose = try SimulatedPose(parsing: text)
            cameras.scene = cameras.scene.posed(pose)
            if let camera = cameras.openedCamera { camera.scene = camera.scene.posed(pose) }
            return pose.text
        }
    }

    private static func lightHook(_ cameras: SimulatedCameraProvider) -> (String, Duration?) throws -> Double {
        { name, duration in try cameras.changeLight(name, duration: duration).toEV }
    }

    private static func crossHook(_ cameras: SimulatedCameraProvider) -> (Double, Double) throws -> UInt64 {
        { speed, size in
            guard let camera = cameras.openedCamera else { throw HardwareError(.busy, "the simulated camera is not open") }
            return try camera.crossObject(widthsPerSecond: speed, heightFraction: size)
        }
    }

    /// A PIR module holds its output high for a while; the rising edge is the trigger.
    private static func pirHook(_ line: SimulatedInputLine, loop: any EventLoop) -> () throws -> Void {
        {
            let now = loop.now()
            line.drive(true, at: now)
            line.drive(false, at: now + .milliseconds(1))
        }
    }
}

import Hardware
import LinuxHardware
import SimulatedHardware
import Supervisor

extension BoardFactory {
    /// The PIR sensor's line named by the board (`gpio.pir`): a simulated line (`sim pir` drives
    /// it, SimulationHooks+Board.swift) or a libgpiod line like the shutter button's. A line that does not open is a note, not a
    /// failed start: the camera and the other triggers still work.
    static func makePIRLine(_ gpio: BoardDescription.GPIOSection, notes: inout [String]) -> (any GPIOInputLine)? {
        guard let address = gpio.pir else { return nil }
        switch gpio.backend {
        case "sim":
            return SimulatedInputLine(address: address)
        case "gpiod":
            do { return try GPIODInputLine(address, consumer: "tripod") } catch {
                notes.append("PIR: \(error); motion triggers still work")
                return nil
            }
        default:
            return nil
        }
    }
}

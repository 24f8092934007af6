import Hardware

/// The button and LED lines of a board opened through libgpiod, from the board's `gpio` section.
public struct GPIODButtonLines {
    /// The shutter (full press) line.
    public var shutter: GPIODInputLine
    /// The half-press line of a two-stage button, when the board has one.
    public var halfPress: GPIODInputLine?
    /// The status LED, when the board has one and it could be opened.
    public var led: GPIODOutputLine?
    /// Why the configured LED could not be opened; the LED is optional, so this does not throw.
    public var ledError: HardwareError?

    /// Opens the lines `section` names (`backend` must be "gpiod"). The shutter line is required; a
    /// configured half-press line that fails to open throws too (after releasing what was opened);
    /// a failing LED is reported in `ledError`. Consumer name `consumer` is what `gpioinfo` shows.
    public static func open(_ section: BoardDescription.GPIOSection, consumer: String = "tripod") throws -> GPIODButtonLines {
        guard section.backend == "gpiod" else {
            throw HardwareError(.invalidArgument, "GPIO backend \"\(section.backend)\" is not \"gpiod\"")
        }
        guard let shutterAddress = section.shutter else {
            throw HardwareError(.invalidArgument, "board gpio section (backend gpiod) names no shutter line")
        }
        let shutter = try GPIODInputLine(shutterAddress, consumer: consumer)
        var halfPress: GPIODInputLine?
        if let address = section.halfPress {
            do {
                halfPress = try GPIODInputLine(address, consumer: consumer)
            } catch {
                shutter.close()
                throw error
            }
        }
        var lines = GPIODButtonLines(shutter: shutter, halfPress: halfPress, led: nil, ledError: nil)
        if let address = section.led {
            do {
                lines.led = try GPIODOutputLine(address, consumer: consumer)
            } catch let error as HardwareError {
                lines.ledError = error
            }
        }
        return lines
    }
}

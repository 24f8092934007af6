import Console
import Hardware
import Lifecycle

extension Supervisor {
    /// The firmware's version, in the banner, `tripod --version` and gyro logs.
    public static let firmwareVersion = TripodVersion.firmware

    /// The lines a person sees first on a console: board, devices, captures, how to go on.
    public func bannerLines() -> [String] {
        var lines = ["tripod \(Self.firmwareVersion) on board \(devices.board.name): \(devices.board.summary)"]
        for (name, state) in deviceSummary() { lines.append("  \(name): \(state)") }
        lines.append("captures: \(devices.storage.rootDescription)")
        lines.append("type help for commands, status for the state, quit to stop")
        // Each line fits an 80-column serial terminal (longer ones wrap, indented).
        return lines.flatMap { TerminalWidth.wrap($0, indent: "    ") }.map { "# " + $0 }
    }
}

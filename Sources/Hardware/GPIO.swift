/// Which way a line changed.
public enum GPIOEdgeKind: String, Sendable, Codable {
    case rising, falling
}

/// One edge event, stamped by the kernel (`gpiod_line_event.ts`, CLOCK_MONOTONIC).
public struct GPIOEdge: Hashable, Sendable {
    public var kind: GPIOEdgeKind
    public var timestamp: MonotonicTime
    public init(kind: GPIOEdgeKind, timestamp: MonotonicTime) { self.kind = kind; self.timestamp = timestamp }
}

/// Internal bias of an input line (`GPIOD_LINE_REQUEST_FLAG_BIAS_*`).
public enum GPIOBias: String, Sendable, Codable {
    case asIs = "as-is", disabled, pullUp = "pull-up", pullDown = "pull-down"
}

/// How a board names a line: by its name in the device tree, or by chip and offset.
public struct GPIOLineAddress: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Line name ("SHUTTER"), searched on every chip (`gpiod_line_find`).
    public var name: String?
    /// Chip path or name ("gpiochip0", "/dev/gpiochip4").
    public var chip: String?
    public var offset: Int?
    public var bias: GPIOBias?
    /// When true, a low level reads as active (pressed).
    public var activeLow: Bool?

    public init(name: String? = nil, chip: String? = nil, offset: Int? = nil, bias: GPIOBias? = nil, activeLow: Bool? = nil) {
        self.name = name; self.chip = chip; self.offset = offset; self.bias = bias; self.activeLow = activeLow
    }

    public var description: String {
        if let name { return "line \"\(name)\"" }
        return "\(chip ?? "?") line \(offset.map(String.init) ?? "?")"
    }
}

/// An input line requested for both edges. Values are logical (active = true, after active-low).
public protocol GPIOInputLine: AnyObject {
    var address: GPIOLineAddress { get }
    /// The current logical value (`gpiod_line_get_value`).
    func read() throws -> Bool
    /// Edges are delivered on any thread, in kernel order; the handler must not block.
    func setEdgeHandler(_ handler: @escaping @Sendable (GPIOEdge) -> Void)
    /// Called once, on any thread, when the line stops delivering edges (its reader failed, e.g.
    /// ENODEV when the chip went away). Lines that cannot fail ignore it.
    func setFailureHandler(_ handler: @escaping @Sendable (HardwareError) -> Void)
    /// Releases the line (`gpiod_line_release`).
    func close()
}

extension GPIOInputLine {
    /// A line that cannot fail after it was opened never calls the handler.
    public func setFailureHandler(_ handler: @escaping @Sendable (HardwareError) -> Void) {}
}

/// An output line (an LED). Values are logical.
public protocol GPIOOutputLine: AnyObject {
    var address: GPIOLineAddress { get }
    /// Sets the level (`gpiod_line_set_value`).
    func write(_ active: Bool) throws
    func close()
}

/// An input line's one failure and who hears of it, kept inside the line's lock: a failure that
/// comes before a handler is set is kept and delivered when one is; either way it is delivered once.
public struct LineFailureReport: Sendable {
    private var handler: (@Sendable (HardwareError) -> Void)?
    private var unreported: HardwareError?

    public init() {}

    /// Sets the handler; returns a failure that came before it, to deliver now (outside the lock).
    public mutating func setHandler(_ handler: @escaping @Sendable (HardwareError) -> Void) -> HardwareError? {
        defer { unreported = nil }
        if unreported == nil { self.handler = handler }
        return unreported
    }

    /// Records `error`; returns the handler to call now (outside the lock), or nil when the failure
    /// is kept for a later handler (`keep` false: dropped, e.g. while the line is closing).
    public mutating func fail(_ error: HardwareError, keep: Bool = true) -> (@Sendable (HardwareError) -> Void)? {
        defer { handler = nil }
        if handler == nil && keep { unreported = error }
        return handler
    }

    /// Forgets the handler (what it captured goes with it).
    public mutating func clear() { handler = nil }
}

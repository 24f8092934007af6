import Hardware

/// A status LED pattern: steps of (level, duration) played in a loop; one step means steady.
public enum StatusLEDPattern: String, Hashable, Sendable, CaseIterable {
    case off
    /// Steady on: ready to shoot.
    case ready
    /// 100 ms on, 100 ms off: a bracket is running.
    case busy
    /// Two 100 ms flashes, then 700 ms dark: something needs attention.
    case error
    /// 900 ms on, 100 ms off (a slow heartbeat): recording.
    case recording

    /// The steps, in milliseconds.
    public var steps: [(isOn: Bool, durationMilliseconds: Int)] {
        switch self {
        case .off: return [(false, 0)]
        case .ready: return [(true, 0)]
        case .busy: return [(true, 100), (false, 100)]
        case .error: return [(true, 100), (false, 100), (true, 100), (false, 700)]
        case .recording: return [(true, 900), (false, 100)]
        }
    }
}

/// What shows the camera's status: the board's LED (`StatusLEDPlayer`), or `NoStatusLED` on a
/// board without one. Confined to the loop.
public protocol StatusLight: AnyObject {
    /// The pattern last asked for (`.off` after `stop`).
    var pattern: StatusLEDPattern { get }
    /// Starts `pattern` from its first step (a no-op if it is already playing).
    func show(_ pattern: StatusLEDPattern)
    /// Stops the pattern and turns the light off.
    func stop()
}

/// A board without a status LED (the null object): remembers the pattern asked for, shows nothing.
public final class NoStatusLED: StatusLight {
    public private(set) var pattern = StatusLEDPattern.off
    public init() {}
    public func show(_ pattern: StatusLEDPattern) { self.pattern = pattern }
    public func stop() { pattern = .off }
}

/// Plays `StatusLEDPattern`s on an output line with the loop's timers. Confined to `loop`.
///
/// A write error (`gpiod_line_set_value` failing) stops the player and is reported once through
/// `onError`; the camera keeps working without its LED.
public final class StatusLEDPlayer: StatusLight {
    public let loop: any EventLoop
    private let line: any GPIOOutputLine
    private let onError: (HardwareError) -> Void
    public private(set) var pattern: StatusLEDPattern = .off
    private var generation = 0
    private var failed = false
    private var isPlaying = false
    private var timer: ScheduledWork?

    public init(line: any GPIOOutputLine, loop: any EventLoop, onError: @escaping (HardwareError) -> Void = { _ in }) {
        self.line = line; self.loop = loop; self.onError = onError
    }

    /// Starts `pattern` from its first step (a no-op if it is already playing).
    public func show(_ pattern: StatusLEDPattern) {
        loop.preconditionInEventLoop()
        guard !failed, !(isPlaying && pattern == self.pattern) else { return }
        self.pattern = pattern
        isPlaying = true
        generation += 1
        timer?.cancel(); timer = nil
        play(step: 0, generation: generation)
    }

    /// Stops the pattern and turns the LED off.
    public func stop() {
        loop.preconditionInEventLoop()
        generation += 1
        timer?.cancel(); timer = nil
        pattern = .off
        isPlaying = false
        if !failed { write(false) }
    }

    private func play(step: Int, generation: Int) {
        guard generation == self.generation, !failed else { return }
        let steps = pattern.steps
        let (isOn, milliseconds) = steps[step % steps.count]
        write(isOn)
        guard steps.count > 1, !failed else { timer = nil; return }
        let bound = LoopBound(self, loop: loop)
        timer = loop.schedule(after: .milliseconds(milliseconds)) {
            bound.value.play(step: (step + 1) % steps.count, generation: generation)
        }
    }

    private func write(_ isOn: Bool) {
        do {
            try line.write(isOn)
        } catch {
            failed = true
            timer?.cancel(); timer = nil
            let hardware = error as? HardwareError
                ?? HardwareError(.other, "status LED \(line.address): \(error)")
            onError(hardware)
        }
    }
}

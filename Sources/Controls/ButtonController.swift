import Hardware

/// A capture-type or other action the button asks the supervisor to perform.
public struct ButtonCommand: Hashable, Sendable {
    /// What to do, from the configuration's gesture map.
    public var action: ButtonAction
    /// The gesture that asked for it.
    public var gesture: ButtonGesture
    /// Kernel time of the press edge: the start of shutter lag.
    public var edgeTimestamp: MonotonicTime
    /// True when it waited for a running bracket to finish first.
    public var wasQueued: Bool
}

/// What the button logic tells the supervisor, on the event loop.
public enum ButtonOutput: Hashable, Sendable {
    /// Perform this now. For capture actions, call `captureDidFinish()` when the capture ends.
    case perform(ButtonCommand)
    /// Half press: lock focus and exposure (edge time given).
    case lockFocusAndExposure(edgeTimestamp: MonotonicTime)
    /// Half press released: unlock focus and exposure.
    case unlockFocusAndExposure(edgeTimestamp: MonotonicTime)
    /// A capture press kept until the running capture ends.
    case queued(ButtonCommand)
    /// A capture press refused while busy.
    case rejected(ButtonCommand, reason: String)
    /// A line stopped delivering edges (its reader failed): the button no longer works.
    case lineFailed(line: String, reason: String)
}

/// Counters for `status`.
public struct ButtonStatistics: Hashable, Sendable {
    /// Raw edges from both lines, bounces included.
    public var edgesReceived = 0
    /// Edges dropped by the bounded inbox during a flood (the level is kept).
    public var edgesDropped = 0
    /// Gestures recognised (mapped or not).
    public var gestures = 0
    /// Capture presses refused while busy.
    public var rejected = 0
}

/// The shutter button: debounces edges, recognises gestures, maps them to actions and gates
/// captures while a bracket runs. Confined to `loop`; its timers run on `loop` (ManualEventLoop in
/// tests). Lines deliver edges on any thread; they reach the loop through a bounded inbox.
public final class ButtonController {
    public private(set) var configuration: ButtonConfiguration
    public let loop: any EventLoop
    private let shutter: any GPIOInputLine
    private let halfPress: (any GPIOInputLine)?
    private let output: (ButtonOutput) -> Void
    private let inbox = EdgeInbox(capacity: 64)
    private var shutterDebouncer: Debouncer
    private var halfDebouncer: Debouncer
    private var recognizer: GestureRecognizer
    private var gate: CaptureGate<ButtonCommand>
    private var timer: (deadline: MonotonicTime, work: ScheduledWork)?
    private var gestureCount = 0
    private var started = false

    /// `output` is called on `loop` for every decision. Call `start()` on the loop to listen.
    public init(configuration: ButtonConfiguration, loop: any EventLoop, shutter: any GPIOInputLine,
                halfPress: (any GPIOInputLine)? = nil, output: @escaping (ButtonOutput) -> Void) {
        self.configuration = configuration; self.loop = loop
        self.shutter = shutter; self.halfPress = halfPress; self.output = output
        shutterDebouncer = Debouncer(window: configuration.debounceWindow, mode: configuration.debounceMode)
        halfDebouncer = Debouncer(window: configuration.debounceWindow, mode: configuration.debounceMode)
        recognizer = GestureRecognizer(configuration: configuration)
        gate = CaptureGate(policy: configuration.whileBusy)
    }

    /// Reads the lines' current levels (a button held at start is not a press) and installs the
    /// edge handlers. Call on the loop.
    public func start() {
        loop.preconditionInEventLoop()
        guard !started else { return }
        started = true
        let initialShutter = (try? shutter.read()) ?? false
        shutterDebouncer = Debouncer(window: configuration.debounceWindow, mode: configuration.debounceMode,
                                     initiallyActive: initialShutter)
        if initialShutter { recognizer.assumeHeldAtStart() }
        let bound = LoopBound(self, loop: loop)
        let inbox = self.inbox
        let loop = self.loop
        // The failure handler goes first: the edge handler starts gpiod's reader, which may fail at
        // once (ENODEV), and a failure with no handler yet would go unsaid.
        let shutterName = "\(shutter.address)"
        shutter.setFailureHandler { error in
            loop.execute { bound.value.lineFailed(shutterName, error) }
        }
        shutter.setEdgeHandler { edge in
            if inbox.push(.shutter, edge) { loop.execute { bound.value.drainInbox() } }
        }
        if let halfPress {
            let initialHalf = (try? halfPress.read()) ?? false
            halfDebouncer = Debouncer(window: configuration.debounceWindow, mode: configuration.debounceMode,
                                      initiallyActive: initialHalf)
            let halfName = "\(halfPress.address)"
            halfPress.setFailureHandler { error in
                loop.execute { bound.value.lineFailed(halfName, error) }
            }
            halfPress.setEdgeHandler { edge in
                if inbox.push(.halfPress, edge) { loop.execute { bound.value.drainInbox() } }
            }
        }
    }

    /// Closes the lines and cancels the timer. Call on the loop.
    public func stop() {
        loop.preconditionInEventLoop()
        timer?.work.cancel(); timer = nil
        shutter.close(); halfPress?.close()
    }

    /// Applies new settings (console `set button.*`) without reopening the lines: the debouncers
    /// restart from the lines' current levels, a gesture in progress is dropped, and a running or
    /// queued capture keeps the gate busy. Call on the loop.
    public func reconfigure(_ newConfiguration: ButtonConfiguration) {
        loop.preconditionInEventLoop()
        configuration = newConfiguration
        timer?.work.cancel(); timer = nil
        let shutterActive = started ? ((try? shutter.read()) ?? false) : false
        shutterDebouncer = Debouncer(window: newConfiguration.debounceWindow, mode: newConfiguration.debounceMode,
                                     initiallyActive: shutterActive)
        let halfActive = started ? ((try? halfPress?.read()) ?? false) : false
        halfDebouncer = Debouncer(window: newConfiguration.debounceWindow, mode: newConfiguration.debounceMode,
                                  initiallyActive: halfActive)
        recognizer = GestureRecognizer(configuration: newConfiguration)
        if shutterActive { recognizer.assumeHeldAtStart() }
        var newGate = CaptureGate<ButtonCommand>(policy: newConfiguration.whileBusy)
        if gate.isBusy { newGate.markBusy() }
        if let waiting = gate.queued { _ = newGate.offer(waiting) }
        gate = newGate
    }

    /// A capture was started elsewhere (console): button captures now wait or are refused.
    public func captureDidStart() {
        loop.preconditionInEventLoop()
        gate.markBusy()
    }

    /// The running capture ended: starts the queued one, if any (as a `.perform` output).
    public func captureDidFinish() {
        loop.preconditionInEventLoop()
        if var next = gate.finish() {
            next.wasQueued = true
            output(.perform(next))
        }
    }

    /// Counters for `status`. Call on the loop.
    public var statistics: ButtonStatistics {
        let counts = inbox.counts
        return ButtonStatistics(edgesReceived: counts.received, edgesDropped: counts.dropped,
                                gestures: gestureCount, rejected: gate.rejectedCount)
    }

    /// True while a button capture runs or waits.
    public var isCaptureBusy: Bool { gate.isBusy }

    /// Why the button stopped working (a line's reader failed); nil while it works.
    public private(set) var failure: String?

    private func lineFailed(_ line: String, _ error: HardwareError) {
        guard started else { return }
        let reason = error.message
        if failure == nil { failure = line == "\(shutter.address)" ? reason : "\(line): \(reason)" }
        output(.lineFailed(line: line, reason: reason))
    }

    private func drainInbox() {
        for (line, edge) in inbox.drain() {
            switch line {
            case .shutter:
                // A settle the loop was too busy to run on time comes first (by timestamp).
                if let due = shutterDebouncer.nextDeadline, due < edge.timestamp,
                   let change = shutterDebouncer.settle(at: due) { shutterChanged(change) }
                if let change = shutterDebouncer.edge(edge) { shutterChanged(change) }
            case .halfPress:
                if let due = halfDebouncer.nextDeadline, due < edge.timestamp,
                   let change = halfDebouncer.settle(at: due) { halfChanged(change) }
                if let change = halfDebouncer.edge(edge) { halfChanged(change) }
            }
        }
        rearmTimer()
    }

    private func timerFired() {
        timer = nil
        drainInbox()  // edges already in the inbox come before the deadline's decision
        let now = loop.now()
        if let change = shutterDebouncer.settle(at: now) { shutterChanged(change) }
        if let change = halfDebouncer.settle(at: now) { halfChanged(change) }
        handle(recognizer.deadlinePassed(at: now))
        rearmTimer()
    }

    private func shutterChanged(_ change: Debouncer.Change) {
        handle(recognizer.shutterChanged(isActive: change.isActive, at: change.timestamp, now: change.decidedAt))
    }

    private func halfChanged(_ change: Debouncer.Change) {
        handle(recognizer.halfPressChanged(isActive: change.isActive, at: change.timestamp, now: change.decidedAt))
    }

    private func handle(_ gestures: [RecognizedGesture]) {
        for g in gestures {
            gestureCount += 1
            switch g.gesture {
            case .halfPress: output(.lockFocusAndExposure(edgeTimestamp: g.edgeTimestamp))
            case .halfRelease: output(.unlockFocusAndExposure(edgeTimestamp: g.edgeTimestamp))
            case .press, .doublePress, .longPress:
                guard let action = configuration.action(for: g.gesture) else { continue }
                let command = ButtonCommand(action: action, gesture: g.gesture, edgeTimestamp: g.edgeTimestamp, wasQueued: false)
                guard action.startsCapture else { output(.perform(command)); continue }
                switch gate.offer(command) {
                case .start(let c): output(.perform(c))
                case .queued: output(.queued(command))
                case .rejected(let reason): output(.rejected(command, reason: reason))
                }
            }
        }
    }

    /// Keeps at most one live timer: re-armed only when the next deadline moves earlier, so chatter
    /// (which moves it later on every edge) schedules nothing until the timer runs.
    private func rearmTimer() {
        let deadlines = [shutterDebouncer.nextDeadline, halfDebouncer.nextDeadline, recognizer.nextDeadline]
        guard let next = deadlines.compactMap({ $0 }).min() else { return }
        if let timer, timer.deadline <= next { return }
        timer?.work.cancel()
        let bound = LoopBound(self, loop: loop)
        timer = (next, loop.schedule(at: next) { bound.value.timerFired() })
    }
}

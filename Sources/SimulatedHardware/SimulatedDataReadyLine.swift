import Hardware

/// A chip model that can say when its next sample is due (for a data-ready line).
public protocol SimulatedSampleSource: AnyObject {
    /// The next sample time and the sample period, or nil while the chip is not sampling.
    var sampleSchedule: (next: MonotonicTime, step: Duration)? { get }
}

/// The INT pin of a simulated IMU: a rising edge at every sample the chip produces, stamped with
/// the sample's true time (as the kernel stamps a real edge), delivered through `loop`.
public final class SimulatedDataReadyLine: GPIOInputLine, @unchecked Sendable {
    public let address = GPIOLineAddress(name: "IMU_INT")
    private let loop: any EventLoop
    private let source: any SimulatedSampleSource
    private var handler: (@Sendable (GPIOEdge) -> Void)?
    private var timer: ScheduledWork?
    /// While false the pin stays low (a broken wire).
    public var isConnected = true

    public init(loop: any EventLoop, source: any SimulatedSampleSource) {
        self.loop = loop; self.source = source
    }

    public func read() throws -> Bool { false }

    public func setEdgeHandler(_ handler: @escaping @Sendable (GPIOEdge) -> Void) {
        self.handler = handler
        timer?.cancel()
        arm(after: loop.now())
    }

    public func close() { timer?.cancel(); handler = nil }

    /// Schedules the edge of the first sample after `time`, or re-checks in 1 ms when idle.
    private func arm(after time: MonotonicTime) {
        let bound = WeakLoopBound(self, loop: loop)  // weak: the loop's queue must not keep a dropped line
        guard let (next, step) = source.sampleSchedule, step > .zero else {
            timer = loop.schedule(at: time + .milliseconds(1)) { bound.value?.arm(after: time + .milliseconds(1)) }
            return
        }
        let behind = next <= time ? (time - next).nanoseconds / step.nanoseconds + 1 : 0
        let due = next + .nanoseconds(behind * step.nanoseconds)
        timer = loop.schedule(at: due) {
            guard let me = bound.value else { return }
            if me.isConnected { me.handler?(GPIOEdge(kind: .rising, timestamp: due)) }
            me.arm(after: due)
        }
    }
}

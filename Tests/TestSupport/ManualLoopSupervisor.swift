#if DEBUG  // @testable: the supervisor's writers, drained (see SimulatedBoardHarness)
import Hardware
import Lifecycle
import ManualLoop
import SimulatedHardware
@testable import Supervisor

/// What every harness that runs a supervisor on a `ManualEventLoop` does the same way.
extension ManualEventLoop {
    /// Runs `supervisor.start()` on this loop (as `tripod run` does on its own) and rethrows its
    /// start-up error.
    public func start(_ supervisor: Supervisor) throws(StartupError) {
        try perform { () throws(StartupError) in try supervisor.start() }
    }

    /// Moves the clock by `duration` in steps of `step`, letting the capture writer (a real queue)
    /// finish what each step gave it before the next, so events land at the same simulated time
    /// on every run.
    public func advance(by duration: Duration, inStepsOf step: Duration, draining supervisor: Supervisor) {
        let end = now() + duration
        while now() < end {
            advance(to: min(end, now() + step))
            let service = perform { supervisor.captureService }
            service.drainWrites()
            perform { supervisor.recorder }.drainEncoder()
            supervisor.waitForStateWrites()
            run()
        }
    }
}
#endif

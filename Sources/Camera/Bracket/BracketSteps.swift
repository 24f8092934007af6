import Hardware

/// A bracket's steps and how far each has got: one record per step (its resolved values, whether a
/// frame was kept for it, how many times its own request was queued, and that request's cookie),
/// so what belongs to a step moves with it. `BracketEngine` owns one.
struct BracketSteps {
    /// One step and its progress.
    struct Step {
        /// The step as resolved at start (or as auto-range added it).
        var resolved: ResolvedStep
        /// True once a frame was kept for it.
        var matched = false
        /// Times its own request was queued (retakes included).
        var attempts = 0
        /// Its latest request's cookie: nil before one, and again once the gate asked for a retake.
        var queuedCookie: UInt64?
    }

    private(set) var steps: [Step]

    init(_ resolved: [ResolvedStep]) {
        steps = resolved.map { Step(resolved: $0) }
    }

    /// The steps as resolved, in order.
    var resolved: [ResolvedStep] { steps.map(\.resolved) }
    var count: Int { steps.count }
    var indices: Range<Int> { steps.indices }
    subscript(index: Int) -> ResolvedStep { steps[index].resolved }

    /// Times step `index`'s own request was queued.
    func attempts(_ index: Int) -> Int { steps[index].attempts }
    /// True once a frame was kept for every step.
    var allMatched: Bool { steps.allSatisfy(\.matched) }
    /// Steps still without a kept frame.
    var missingCount: Int { steps.filter { !$0.matched }.count }
    /// The first step without a kept frame.
    var firstUnmatched: Int? { steps.firstIndex { !$0.matched } }
    /// The first step without a kept frame whose own request is queued.
    var firstQueuedUnmatched: Int? { steps.indices.first { !steps[$0].matched && steps[$0].queuedCookie != nil } }

    /// Of `indices`, the steps without a kept frame, in order.
    func unmatched(_ indices: some Sequence<Int>) -> [Int] {
        indices.filter { !steps[$0].matched }
    }

    /// Unmatched steps whose request was queued no later than `cookie` (causality, not counting).
    func pending(upTo cookie: UInt64) -> [Int] {
        steps.indices.filter { !steps[$0].matched && (steps[$0].queuedCookie.map { $0 <= cookie } ?? false) }
    }

    /// Step `index`'s own request went to the camera as `cookie`: one more attempt.
    mutating func queued(_ index: Int, cookie: UInt64) {
        steps[index].queuedCookie = cookie
        steps[index].attempts += 1
    }

    /// The gate asked to retake step `index`: its request no longer stands for it.
    mutating func retake(_ index: Int) {
        steps[index].queuedCookie = nil
    }

    /// A frame was kept for step `index`.
    mutating func matched(_ index: Int) {
        steps[index].matched = true
    }

    /// A step auto-range added.
    mutating func append(_ step: ResolvedStep) {
        steps.append(Step(resolved: step))
    }
}

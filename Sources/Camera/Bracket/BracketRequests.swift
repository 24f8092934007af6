import Hardware

/// A bracket's requests: those planned and waiting for room in the window, those outstanding at the
/// camera, and the requests granted beyond the base budget. `plan` lays out a burst (the lens's
/// travel and settling, then the padding that lets the last step's exposure land); `BracketEngine`
/// owns one and queues from it.
struct BracketRequests {
    /// A request waiting for room in the window: a step, or padding holding a step's values.
    enum Planned { case step(Int), pad(ResolvedStep) }

    /// Waiting for room in the window, in order.
    private(set) var planned: [Planned] = []
    /// Bracket requests at the camera, not yet back.
    private(set) var outstanding: Set<UInt64> = []
    /// Requests granted beyond the base budget: retakes the gate asked for, padding while it
    /// waited, lead-in to a shot's instant and the lens's travel. None of them means "never
    /// matched", so none may spend the budget that detects it.
    private(set) var extraBudget = 0
    /// True while the engine queues from it (queueing is not re-entered).
    var isQueueing = false
    /// The step queued last: padding after a gate's wait holds it.
    private var lastQueued: ResolvedStep?
    /// True once padding holding `lastQueued` has been planned while the gate waits: one wait's
    /// padding is enough, however many times the gate is asked again.
    private var paddedForWait = false
    /// The lens position the last planned request asks for (or the latest frame's, before any).
    private var plannedLensDioptres: Double?

    init(lensDioptres: Double?) {
        plannedLensDioptres = lensDioptres
    }

    /// True when nothing is planned and nothing is outstanding: the burst is over.
    var isIdle: Bool { outstanding.isEmpty && planned.isEmpty }

    /// True when a request is planned and fewer than `window` are outstanding.
    func hasRoom(window: Int) -> Bool { !planned.isEmpty && outstanding.count < window }

    /// Plans `indices` of `steps` in order, with the lens's travel and settling (see
    /// `BracketEngine`), then `pipelineDelayFrames` of padding holding the last. Returns the
    /// requests planned for the lens (granted beyond the budget).
    /// `nearestFocusDioptres`: the lens's range, for a first step with no position to travel from.
    mutating func plan(_ indices: [Int], of steps: BracketSteps, pipelineDelayFrames: Int,
                       lensToleranceDioptres: Double, nearestFocusDioptres: Double) -> Int {
        var travel = 0
        var previous: Int?
        var exposureChangedHere = false
        for index in indices {
            let step = steps[index]
            if let lens = step.lensDioptres {
                let from = plannedLensDioptres ?? lens + nearestFocusDioptres
                if abs(lens - from) > lensToleranceDioptres {
                    if let previous, exposureChangedHere {
                        planned += Array(repeating: .pad(steps[previous]), count: pipelineDelayFrames)
                        travel += pipelineDelayFrames
                    }
                    exposureChangedHere = false
                    planned.append(.step(index))
                    let frames = max(Int((abs(lens - from) / BracketEngine.lensTravelDioptresPerFrame).rounded(.up)) - 1, 0)
                    planned += Array(repeating: .pad(step), count: frames)
                    travel += frames
                    plannedLensDioptres = lens
                    previous = index
                    continue
                }
            }
            if let previous, steps[previous].exposureMicroseconds != step.exposureMicroseconds
                || steps[previous].analogueGain != step.analogueGain { exposureChangedHere = true }
            planned.append(.step(index))
            previous = index
        }
        if let last = indices.last { planned += Array(repeating: .pad(steps[last]), count: pipelineDelayFrames) }
        extraBudget += travel
        return travel
    }

    /// `count` lead-in requests holding the first planned step, right after it (a shot's frames up
    /// to its instant and a margin); granted beyond the budget.
    mutating func leadIn(_ count: Int, of steps: BracketSteps) {
        guard case .step(let first) = planned.first else { return }
        planned.insert(contentsOf: Array(repeating: Planned.pad(steps[first]), count: count), at: 1)
        extraBudget += count
    }

    /// The next planned request, taken.
    mutating func takeNext() -> Planned? {
        planned.isEmpty ? nil : planned.removeFirst()
    }

    /// `item` found no free buffer: first in line again.
    mutating func putBack(_ item: Planned) {
        planned.insert(item, at: 0)
    }

    /// The gate makes the bracket wait: the steps still planned are dropped and returned (to be
    /// planned again when it resumes), and the step queued last is padded, once per wait, so that
    /// its exposure still reaches the sensor.
    mutating func waitForGate(pipelineDelayFrames: Int) -> [Int] {
        let rest = planned.compactMap { item -> Int? in if case .step(let i) = item { i } else { nil } }
        planned = []
        if let last = lastQueued, !paddedForWait {
            paddedForWait = true
            planned = Array(repeating: .pad(last), count: pipelineDelayFrames)
            extraBudget += pipelineDelayFrames
        }
        return rest
    }

    /// Grants `count` requests beyond the budget (a retake's).
    mutating func grant(_ count: Int) {
        extraBudget += count
    }

    /// A step's own request went to the camera.
    mutating func stepQueued(_ step: ResolvedStep) {
        lastQueued = step
        paddedForWait = false
    }

    /// Request `cookie` went to the camera.
    mutating func sent(_ cookie: UInt64) {
        outstanding.insert(cookie)
    }

    /// Request `cookie` came back.
    mutating func returned(_ cookie: UInt64) {
        outstanding.remove(cookie)
    }

    /// Every step is kept: padding still planned is dropped.
    mutating func dropPlanned() {
        planned.removeAll()
    }
}

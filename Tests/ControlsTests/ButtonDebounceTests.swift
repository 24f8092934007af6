import Hardware
import Testing
@testable import Controls

/// Drives a Debouncer as its owner does: edges in order, `settle` at each deadline, edges first on
/// a tie (the controller drains its inbox before a timer's decision).
private func runDebouncer(_ edges: [GPIOEdge], window: Duration, mode: DebounceMode) -> [Debouncer.Change] {
    var d = Debouncer(window: window, mode: mode)
    var changes: [Debouncer.Change] = []
    for edge in edges {
        while let deadline = d.nextDeadline, deadline < edge.timestamp {
            if let c = d.settle(at: deadline) { changes.append(c) }
        }
        if let c = d.edge(edge) { changes.append(c) }
    }
    while let deadline = d.nextDeadline {
        if let c = d.settle(at: deadline) { changes.append(c) }
    }
    return changes
}

/// The specification, written over the whole sequence rather than incrementally: edges closer
/// than `w` form bursts (a gap of exactly `w` starts a new one); a burst's last edge settles when
/// no edge follows within (t, t + w]; leading mode also accepts a burst's first edge at once when
/// it changes the level.
private func specification(_ edges: [GPIOEdge], window w: Duration, mode: DebounceMode) -> [Debouncer.Change] {
    var out: [Debouncer.Change] = []
    var level = false
    var burstStart = MonotonicTime.zero
    var burstAccepted = false
    for (i, e) in edges.enumerated() {
        let t = e.timestamp
        let raw = e.kind == .rising
        if i == 0 || t - edges[i - 1].timestamp >= w {
            burstStart = t; burstAccepted = false
            if mode == .leadingEdge, raw != level {
                level = raw; burstAccepted = true
                out.append(.init(isActive: raw, timestamp: t, decidedAt: t))
            }
        }
        let settles = i == edges.count - 1 || edges[i + 1].timestamp > t + w
        if settles, raw != level {
            level = raw
            out.append(.init(isActive: raw, timestamp: burstAccepted ? t : burstStart, decidedAt: t + w))
            burstAccepted = true
        }
    }
    return out
}

@Suite struct ButtonDebounceTests {
    static let window = Duration.milliseconds(10)
    /// Gaps around the window: far inside, just inside, exactly, just outside, far outside.
    static let gaps: [Duration] = [.microseconds(1), window - .nanoseconds(1), window, window + .nanoseconds(1), window * 3]

    /// Every sequence of 1...5 edges, any kinds (repeats model missed edges), any gaps from `gaps`.
    static func allSequences() -> [[GPIOEdge]] {
        var result: [[GPIOEdge]] = []
        for count in 1...5 {
            let gapCombinations = (1..<count).reduce(1) { product, _ in product * gaps.count }
            for kinds in 0..<(1 << count) {
                for gapIndex in 0..<gapCombinations {
                    var t = MonotonicTime(nanoseconds: 5_000_000_000)
                    var rest = gapIndex
                    var edges: [GPIOEdge] = []
                    for i in 0..<count {
                        if i > 0 { t = t + gaps[rest % gaps.count]; rest /= gaps.count }
                        edges.append(GPIOEdge(kind: (kinds >> i) & 1 == 1 ? .rising : .falling, timestamp: t))
                    }
                    result.append(edges)
                }
            }
        }
        return result
    }

    @Test(arguments: [DebounceMode.leadingEdge, .settled])
    func everyShortSequenceMatchesSpecificationAndInvariants(mode: DebounceMode) {
        let w = Self.window
        let sequences = Self.allSequences()
        #expect(sequences.count == 2 + 4 * 5 + 8 * 25 + 16 * 125 + 32 * 625)
        for edges in sequences {
            let changes = runDebouncer(edges, window: w, mode: mode)
            #expect(changes == specification(edges, window: w, mode: mode), "\(edges)")
            // Levels alternate, starting from inactive.
            for (i, c) in changes.enumerated() { #expect(c.isActive == (i % 2 == 0)) }
            // The debounce property: a change decided by settling comes at least a window after the
            // previous decision; a change taken at its own edge starts at least a window after the
            // line reached the previous level (so one burst never yields two presses).
            for (a, b) in zip(changes, changes.dropFirst()) {
                if b.decidedAt == b.timestamp {
                    #expect(b.timestamp - a.timestamp >= w, "\(edges)")
                } else {
                    #expect(b.decidedAt - a.decidedAt >= w, "\(edges)")
                }
            }
            #expect(changes.count <= edges.count)
            // Timestamps are edges of the input, never after the decision.
            for c in changes {
                #expect(edges.contains { $0.timestamp == c.timestamp })
                #expect(c.timestamp <= c.decidedAt)
            }
            // Once quiet, the debounced level is the raw level.
            let finalRaw = edges.last?.kind == .rising
            #expect((changes.last?.isActive ?? false) == finalRaw)
            if mode == .leadingEdge, let first = edges.first, first.kind == .rising {
                // A press from rest is accepted at its own edge: zero added lag.
                #expect(changes.first == .init(isActive: true, timestamp: first.timestamp, decidedAt: first.timestamp))
            }
            if mode == .settled {
                for c in changes { #expect(c.decidedAt - c.timestamp >= w) }
            }
        }
    }

    @Test func spikeShorterThanWindowIsRejectedOnlyInSettledMode() {
        let t0 = MonotonicTime(nanoseconds: 1_000_000_000)
        let spike = [GPIOEdge(kind: .rising, timestamp: t0), GPIOEdge(kind: .falling, timestamp: t0 + .microseconds(50))]
        #expect(runDebouncer(spike, window: Self.window, mode: .settled).isEmpty)
        let leading = runDebouncer(spike, window: Self.window, mode: .leadingEdge)
        #expect(leading.map(\.isActive) == [true, false])
        #expect(leading.last?.decidedAt == t0 + .microseconds(50) + Self.window)
    }

    @Test func nextDeadlineIsNilWhenRawAgreesWithDebounced() {
        var d = Debouncer(window: Self.window, mode: .leadingEdge)
        let t0 = MonotonicTime(nanoseconds: 1_000_000_000)
        #expect(d.edge(GPIOEdge(kind: .rising, timestamp: t0)) != nil)
        #expect(d.nextDeadline == nil)
        #expect(d.edge(GPIOEdge(kind: .falling, timestamp: t0 + .microseconds(100))) == nil)
        #expect(d.nextDeadline == t0 + .microseconds(100) + Self.window)
        #expect(d.settle(at: t0 + .microseconds(200)) == nil)  // too early
        #expect(d.edge(GPIOEdge(kind: .rising, timestamp: t0 + .microseconds(300))) == nil)
        #expect(d.nextDeadline == nil)
        #expect(d.level)
    }
}

import Hardware
import Motion
import SimulatedHardware
import Testing

/// Timestamp error of delivered samples against the chip's true sample times.
func timestampErrors(_ rig: Rig, skipFirst: Int) -> (mean: Double, maxAbs: Double) {
    let truth = rig.recordedSampleTimes
    let samples = rig.samples
    let n = min(truth.count, samples.count)
    // Samples after the last FIFO restart line up with the chip's record from the end.
    let pairs = zip(samples.suffix(n), truth.prefix(n)).dropFirst(skipFirst)
    let errors = pairs.map { ($0.timestamp - $1).secondsValue }
    let mean = errors.reduce(0, +) / Double(max(1, errors.count))
    return (mean, errors.map(abs).max() ?? .infinity)
}

@Suite("FIFO timestamps")
struct TimestampTests {
    @Test("polled: drift estimated, error within a fraction of a period", arguments: [IMUChipModel.mpu6050, .lsm6dso, .lsm6ds3])
    func polled(model: IMUChipModel) throws {
        let rig = try Rig(model: model, traits: { $0.clockErrorPartsPerMillion = 300 })
        try rig.start()
        rig.loop.advance(by: .seconds(60))
        let period = 1 / rig.driver.sampleRateHertz
        // Samples produced after the last drain are not delivered yet: align by count.
        let delivered = rig.samples.count
        let recorded = rig.recordedSampleTimes
        #expect(recorded.count >= delivered)
        let errors = zip(rig.samples, recorded).dropFirst(10 * Int(rig.driver.sampleRateHertz))
            .map { ($0.timestamp - $1).secondsValue }
        let mean = errors.reduce(0, +) / Double(errors.count)
        let worst = errors.map(abs).max() ?? .infinity
        print("polled \(model): drift \(rig.driver.statistics.driftPartsPerMillion) ppm, mean \(mean * 1e6) µs, worst \(worst * 1e6) µs, period \(period * 1e6) µs")
        #expect(abs(rig.driver.statistics.driftPartsPerMillion - 300) < 30)
        #expect(abs(mean) < 0.25 * period)
        #expect(worst < 0.6 * period)
    }

    @Test("data-ready edges: error far below a period")
    func dataReady() throws {
        let rig = try Rig(model: .mpu6050, traits: { $0.clockErrorPartsPerMillion = -200 }, dataReady: true)
        try rig.start()
        rig.loop.advance(by: .seconds(30))
        #expect(rig.healths == [.running])
        let errors = zip(rig.samples, rig.recordedSampleTimes).dropFirst(5000).map { ($0.timestamp - $1).secondsValue }
        let worst = errors.map(abs).max() ?? .infinity
        print("edges: drift \(rig.driver.statistics.driftPartsPerMillion) ppm, worst \(worst * 1e6) µs")
        #expect(errors.count > 9000)
        #expect(worst < 20e-6)
        #expect(abs(rig.driver.statistics.driftPartsPerMillion + 200) < 10)
    }

    @Test("data-ready line broken: the watchdog timer keeps draining without overflow", arguments: [IMUChipModel.mpu6500, .lsm6dso, .lsm6ds3])
    func brokenDataReady(model: IMUChipModel) throws {
        let rig = try Rig(model: model, dataReady: true)
        try rig.start()
        rig.loop.advance(by: .seconds(1))
        let line = try #require(rig.dataReadyLine)
        line.isConnected = false
        rig.clear()
        rig.loop.advance(by: .seconds(5))
        #expect(rig.healths.isEmpty)
        #expect(rig.driver.statistics.overflows == 0)
        #expect(Double(rig.samples.count) > rig.driver.sampleRateHertz * 4.9)
    }

    @Test("the fit recovers a known period and phase from jittered observations")
    func fit() {
        var stamper = FIFOTimestamper(nominalRateHertz: 1000)
        var rng = SeededGenerator(seed: 3)
        let truePeriod = 0.001 * (1 + 250e-6), start = 5.0
        var index: Int64 = -1
        for k in 0..<3000 {  // 30 s of 10 ms polls
            let look = start + Double(k) * 0.01 + Double.random(in: 0..<0.0005, using: &rng)
            index = Int64(((look - start) / truePeriod).rounded(.down))
            stamper.observe(newestIndex: index, observedAt: MonotonicTime(nanoseconds: Int64(look * 1e9)), lagPeriods: 0.5)
        }
        #expect(abs(stamper.driftPartsPerMillion - 250) < 10)
        let t = stamper.timestamp(ofIndex: index).seconds
        let truth = start + Double(index) * truePeriod
        #expect(abs(t - truth) < 0.0004)  // observation latency bias ≤ 0.25 ms + fit noise
    }
}

import Hardware

/// Counters a driver keeps, for status lines, tests and the benchmark.
public struct IMUDriverStatistics: Hashable, Sendable {
    public var samplesDelivered = 0
    public var drains = 0
    /// FIFO overflows seen (samples lost; the FIFO was reset).
    public var overflows = 0
    /// Short reads or bad counts after which the FIFO was reset.
    public var resynchronisations = 0
    /// Transitions to unavailable, and back.
    public var faults = 0
    public var recoveries = 0
    /// The estimated drift of the chip clock, ppm.
    public var driftPartsPerMillion = 0.0
    public init() {}
}

/// An `IMUDevice` that drives an MPU-6050-family or LSM6DSO-family chip over an `I2CDevice`.
///
/// All I2C transfers run on `loop`, which should be the IMU's own loop on a real board (a drain
/// takes up to ≈ 12 ms at 400 kHz), never the capture path's. With a `dataReady` line the FIFO is
/// drained on its edges (at most once per `pollInterval`, stamped with the edge's kernel time);
/// otherwise on a timer every `pollInterval`. Faults (EIO, ENXIO, timeout, wrong WHO_AM_I) emit
/// `.health(.unavailable(reason:))` and bring-up is retried with doubling backoff until the chip
/// answers again, then `.health(.running)` is emitted. The handler runs on `loop`.
public final class I2CIMU: IMUDevice, @unchecked Sendable {
    // Immutable after init, or guarded: `shared`. Everything else is confined to `loop`.
    private let device: any I2CDevice
    private let loop: any EventLoop
    private let configuration: IMUConfiguration
    private let dataReady: (any GPIOInputLine)?
    private let clock: @Sendable () -> MonotonicTime
    private let shared: LockedValue<Shared>
    private struct Shared: Sendable {
        var name: String
        var rateHertz: Double
        var statistics = IMUDriverStatistics()
    }

    private enum State { case stopped, settling, running, unavailable }
    private var state = State.stopped
    private var handler: (@Sendable (IMUEvent) -> Void)?
    private var chip: (any IMUChipDriver)?
    private var timer: ScheduledWork?
    private var retryDelay: Duration
    private var everRunning = false
    private var timestamper = FIFOTimestamper(nominalRateHertz: 500)
    private var producedIndex: Int64 = 0
    private var lastEdge: GPIOEdge?
    private var lastDrain: MonotonicTime?
    private var generation = 0

    /// - Parameters:
    ///   - device: the chip's I2C device (see `IMUChipModel.detect` to find it).
    ///   - loop: where transfers, timers and the handler run.
    ///   - dataReady: the chip's INT pin, when the board wires one.
    ///   - clock: CLOCK_MONOTONIC as the driver reads it around transfers; defaults to the loop's.
    ///     The simulated bus passes its own (the loop time plus time spent on the wire).
    public init(device: any I2CDevice, loop: any EventLoop, configuration: IMUConfiguration = IMUConfiguration(),
                dataReady: (any GPIOInputLine)? = nil, clock: (@Sendable () -> MonotonicTime)? = nil) {
        self.device = device
        self.loop = loop
        self.clock = clock ?? { [loop] in loop.now() }
        self.configuration = configuration
        self.dataReady = dataReady
        self.retryDelay = configuration.retryInitial
        self.shared = LockedValue(Shared(name: "IMU on \(device.name)", rateHertz: configuration.rateHertz))
    }

    public var name: String { shared.withLock { $0.name } }
    public var sampleRateHertz: Double { shared.withLock { $0.rateHertz } }
    /// A snapshot of the counters.
    public var statistics: IMUDriverStatistics { shared.withLock { $0.statistics } }

    /// Starts bring-up on the loop; failures arrive as `.health(.unavailable)` events, never throws
    /// for device errors (so a missing IMU never stops the supervisor).
    public func start(handler: @escaping @Sendable (IMUEvent) -> Void) throws {
        loop.execute { [self] in
            guard state == .stopped else { return }
            self.handler = handler
            generation += 1
            if let line = dataReady {
                let loop = self.loop
                line.setEdgeHandler { [self] edge in loop.execute { self.edgeArrived(edge) } }
            }
            bringUp()
        }
    }

    public func stop() {
        loop.execute { [self] in
            state = .stopped
            generation += 1
            timer?.cancel()
            timer = nil
            dataReady?.setEdgeHandler { _ in }
            handler = nil
        }
    }

    // MARK: Bring-up and faults

    private func bringUp() {
        do {
            let model = try IMUChipModel.identify(device)
            if let expected = configuration.expectedModel, expected != model {
                throw HardwareError(.notFound, "\(device.name): WHO_AM_I says \(model.rawValue), board says \(expected.rawValue)")
            }
            let driver: any IMUChipDriver
            if let existing = chip, existing.model == model { driver = existing } else { driver = makeChipDriver(model) }
            chip = driver
            // Software reset, then let the chip settle (100 ms InvenSense, 10 ms ST) off the loop.
            if model.isInvenSense {
                try device.writeByte(register: 0x6B, value: 0x80)
            } else {
                try device.writeByte(register: 0x12, value: 0x01)
            }
            state = .settling
            let settle: Duration = model.isInvenSense ? .milliseconds(100) : .milliseconds(10)
            schedule(after: settle) { $0.finishBringUp() }
        } catch {
            fault(error)
        }
    }

    private func finishBringUp() {
        guard let driver = chip else { return }
        do {
            try driver.configure(device, configuration)
            let rate = driver.sampleRateHertz
            shared.withLock {
                $0.name = "\(driver.model.rawValue) on \(device.name)"
                $0.rateHertz = rate
                if everRunning { $0.statistics.recoveries += 1 }
            }
            timestamper = FIFOTimestamper(nominalRateHertz: rate)
            producedIndex = 0
            state = .running
            lastDrain = nil
            retryDelay = configuration.retryInitial
            everRunning = true
            handler?(.health(.running))
            schedulePoll(after: drainInterval)
        } catch {
            fault(error)
        }
    }

    private func fault(_ error: any Error) {
        let reason: String
        switch error {
        case let e as HardwareError: reason = e.message
        case let e as ShortRead: reason = "\(device.name): short read (\(e.got) of \(e.expected) bytes)"
        default: reason = "\(device.name): \(error)"
        }
        if state != .unavailable {
            shared.withLock { $0.statistics.faults += 1 }
            handler?(.health(.unavailable(reason: reason)))
        }
        state = .unavailable
        timer?.cancel()
        let delay = retryDelay
        retryDelay = min(retryDelay * 2, configuration.retryMaximum)
        schedule(after: delay) { $0.bringUp() }
    }

    // MARK: Draining

    private func edgeArrived(_ edge: GPIOEdge) {
        guard state == .running, edge.kind == .rising else { return }
        lastEdge = edge
        if let last = lastDrain, loop.now() - last < drainInterval { return }
        drain()
    }

    /// Half the time the FIFO takes to fill (nil without a FIFO).
    private var halfFillTime: Duration? {
        guard let chip, chip.fifoDepthSamples < Int.max else { return nil }
        return .seconds(Double(chip.fifoDepthSamples) / chip.sampleRateHertz / 2)
    }

    /// The drain interval: as configured, but never more than half the FIFO's fill time.
    private var drainInterval: Duration { min(configuration.pollInterval, halfFillTime ?? configuration.pollInterval) }

    /// Schedules the next drain `delay` after the start of the previous one (so polls keep their
    /// rate whatever the transfers cost), but never before the transfers so far have finished.
    private func schedulePoll(after delay: Duration) {
        // With a data-ready line the timer is only a watchdog in case edges stop (a broken wire),
        // still early enough that the FIFO does not overflow.
        let watchdog = max(delay, min(delay * 10, halfFillTime ?? delay * 10))
        let wait = dataReady == nil ? delay : watchdog
        let base = lastDrain ?? loop.now()
        schedule(at: max(base + wait, clock(), loop.now())) { $0.drain() }
    }

    private func schedule(after delay: Duration, _ body: @escaping @Sendable (I2CIMU) -> Void) {
        // From the driver's clock: when transfers ran past the loop's time (the simulated bus),
        // the next work waits for them, as it would on a real thread blocked in the ioctl.
        schedule(at: max(loop.now(), clock()) + delay, body)
    }

    private func schedule(at deadline: MonotonicTime, _ body: @escaping @Sendable (I2CIMU) -> Void) {
        timer?.cancel()
        let expected = generation
        let work = WeakLoopBound(self, loop: loop)  // weak: the loop's queue must not keep a dropped IMU
        timer = loop.schedule(at: deadline) {
            guard let me = work.value, me.generation == expected else { return }
            body(me)
        }
    }

    private func drain() {
        guard state == .running, let chip else { return }
        let lookedAt = loop.now()
        lastDrain = lookedAt
        var result: ChipDrain
        do {
            result = try chip.drain(device, clock: clock)
        } catch is ShortRead {
            // The transfer broke mid-way: the stream position is unknown, so start it afresh.
            do { try chip.resetFIFO(device) } catch { fault(error); return }
            result = ChipDrain()
            result.resynchronised = true
        } catch {
            fault(error)
            return
        }
        shared.withLock { $0.statistics.drains += 1 }
        if result.overflowed || result.resynchronised {
            shared.withLock {
                if result.overflowed { $0.statistics.overflows += 1 } else { $0.statistics.resynchronisations += 1 }
            }
            timestamper.restart()
            producedIndex = 0
        }
        if !result.readings.isEmpty {
            let first = producedIndex
            producedIndex += Int64(result.readings.count)
            let newest = producedIndex + Int64(result.leftInFIFO) - 1
            let period = timestamper.periodSeconds
            let countTime = result.countSampledAt ?? lookedAt
            if let edge = lastEdge, result.leftInFIFO == 0,
               (countTime - edge.timestamp).secondsValue < period, countTime >= edge.timestamp {
                timestamper.observe(newestIndex: newest, observedAt: edge.timestamp, lagPeriods: 0)
            } else {
                timestamper.observe(newestIndex: newest, observedAt: countTime, lagPeriods: 0.5)
            }
            let mapping = configuration.axisMapping
            var samples: [IMUSample] = []
            samples.reserveCapacity(result.readings.count)
            for (i, r) in result.readings.enumerated() {
                samples.append(IMUSample(timestamp: timestamper.timestamp(ofIndex: first + Int64(i)),
                                         gyro: mapping.toCamera(r.gyro), accel: mapping.toCamera(r.accel)))
            }
            let drift = timestamper.driftPartsPerMillion
            shared.withLock {
                $0.statistics.samplesDelivered += samples.count
                $0.statistics.driftPartsPerMillion = drift
            }
            handler?(.samples(samples))
        }
        if result.leftInFIFO > 0 {
            schedulePoll(after: .zero)
        } else {
            schedulePoll(after: drainInterval)
        }
    }
}

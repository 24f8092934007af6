import Camera
import Console
import Foundation
import Hardware
import Media
import Settings
import SimulatedHardware
import TestSupport
import Testing
@testable import Capture
@testable import Supervisor

/// The intervalometer (`timelapse`) on the simulated board and a manual clock: shots due on the
/// wall clock (which follows the manual one), missed rather than bunched, resumed after a restart,
/// and the day-to-night ramp against the simulated sunset (`sim light`).
@Suite struct TimelapseTests {
    // MARK: Parsing

    @Test func thePlanReadsItsClausesInAnyOrderAndRefusesWhatItCannotDo() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let plan = try TimelapsePlan.parse(["every", "10s", "count", "360", "ramp", "auto"], now: now)
        #expect(plan.interval == .seconds(10) && plan.limit == .count(360) && plan.ramp && plan.action == ["capture"])
        #expect(plan.summary == "every 10s count 360 ramp auto capture")
        let spanned = try TimelapsePlan.parse(["every", "1m", "ramp", "off", "for", "1h30m", "bracket", "ev", "3", "1"], now: now)
        #expect(spanned.interval == .seconds(60) && spanned.limit == .span(seconds: 5400) && !spanned.ramp)
        #expect(spanned.action == ["bracket", "ev", "3", "1"] && spanned.lastShot(startingAt: now) == 90)
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC") ?? utc.timeZone
        // 1_800_000_000 is 08:00 UTC: until 06:30 is the next morning's.
        let overnight = try TimelapsePlan.parse(["every", "30s", "until", "06:30"], now: now, calendar: utc)
        #expect(overnight.limit == .until(now.addingTimeInterval(22.5 * 3600)))
        #expect(overnight.lastShot(startingAt: now) == 2700)
        for bad in [["10s"], ["every"], ["every", "0.1s"], ["every", "10s", "count", "0"], ["every", "10s", "count", "3", "for", "1h"],
                    ["every", "10s", "ramp", "on"], ["every", "10s", "until", "25:00"], ["every", "10s", "capture", "now"],
                    ["every", "10s", "bracket"], ["every", "ten"]] {
            #expect(throws: ConsoleError.self, "\(bad)") { _ = try TimelapsePlan.parse(bad, now: now) }
        }
    }

    @Test func spansReadBackAsTheyAreWritten() throws {
        #expect(try ValueParser.span("1h30m") == .seconds(5400))
        #expect(try ValueParser.span("2min") == .seconds(120))
        #expect(try ValueParser.span("0.5s") == .milliseconds(500))
        #expect(try ValueParser.span("250ms") == .milliseconds(250))
        #expect(try ValueParser.span("90") == .seconds(90))
        #expect(ValueParser.formatSpan(.seconds(5400)) == "1h30m" && ValueParser.formatSpan(.seconds(10)) == "10s")
        #expect(ValueParser.formatSpan(.milliseconds(1500)) == "1.5s")
        for bad in ["", "h", "1x", "1h3", "-5s", "40d"] { #expect(throws: ConsoleError.self, "\(bad)") { _ = try ValueParser.span(bad) } }
    }

    // MARK: The ramp, alone

    @Test func theRampMovesNoFasterThanItsRateAndLongExposureComesBeforeISO() {
        var ramp = ExposureRamp(rateEVPerHour: 30)
        let dark = RawExposureMeasurement(median: 0.18 / 16, midtone: 0.18 / 16, highlight: 0.2, samples: 1000)  // 4 EV under
        _ = ramp.meter(shotEV: 10, measurement: dark)
        let next = ramp.nextEV(after: .seconds(60)) ?? 0
        #expect(abs(next - 10.5) < 1e-9, "30 EV/h for a minute is half an EV: \(next)")
        let limits = ExposureRamp.Limits(minimumMicroseconds: 26, maximumMicroseconds: 1_000_000, minimumGain: 1, maximumGain: 16)
        #expect(limits.split(log2(500_000)) == (500_000, 1))   // time first
        let night = limits.split(log2(4_000_000))
        #expect(night.microseconds == 1_000_000 && abs(night.gain - 4) < 1e-9)  // then gain
        #expect(limits.split(log2(40_000_000)).gain == 16)  // never beyond the sensor
        // Steps go on from what the ramp asked, not from what was metered: a frame within the
        // engine's 2 % of the step may stand for it, and the ramp must not stall on it.
        var slow = ExposureRamp(rateEVPerHour: 30)
        _ = slow.meter(shotEV: 10, measurement: dark)
        for _ in 0..<4 {
            let asked = slow.nextEV(after: .seconds(3)) ?? 0
            slow.commanded(asked)
            _ = slow.meter(shotEV: 10, measurement: dark)  // the same frame exposure each time
        }
        #expect(abs((slow.nextEV(after: .seconds(3)) ?? 0) - (10 + 5 * 0.025)) < 1e-9, "the ramp moved on: \(slow.nextEV(after: .seconds(3)) ?? 0)")
        // A clipped highlight lowers the target below what the median alone asks.
        let window = RawExposureMeasurement(median: 0.18, midtone: 0.18, highlight: 1, samples: 1000)
        #expect(ExposureRamp.target(shotEV: 10, measurement: window) < 10)
    }

    // MARK: On the simulated board

    @Test func shotsAreDueOnTheWallClockAndEachSidecarKnowsItsNumber() throws {
        let rig = try CaptureRig()
        _ = rig.send("set capture.format jpeg")
        let started = rig.send("timelapse start every 2s count 4")
        #expect(started.contains { $0.hasPrefix("ok timelapse=started") && $0.contains("shots=4") }, "\(started)")
        let lines = rig.settle(until: { $0.event("timelapse.stopped") != nil }, limit: .seconds(12))
        let stopped = try #require(lines.event("timelapse.stopped"), "\(lines)")
        #expect(stopped.contains("taken=4") && stopped.contains("missed=0") && stopped.contains("reason=done"), "\(stopped)")
        let shots = try rig.sidecars().compactMap(\.timelapse).sorted { $0.shot < $1.shot }
        #expect(shots.map(\.shot) == [1, 2, 3, 4])
        for (a, b) in zip(shots, shots.dropFirst()) { #expect(abs(b.dueTime.timeIntervalSince(a.dueTime) - 2) < 1e-6) }
        // Each shot's first frame is exposed after it was due, within a few frames (the pipeline's
        // delay). Its SensorTimestamp is on the manual clock, which the rig's wall clock follows.
        let wallMinusLoop = rig.supervisor.services.wallClock().timeIntervalSince1970 - Double(rig.loop.now().nanoseconds) / 1e9
        for sidecar in try rig.sidecars() {
            let record = try #require(sidecar.timelapse)
            let due = record.dueTime
            // Started when due, to the clock's step: the loop woke at the due time, not later.
            let triggered = Double(try #require(record.triggerWallClockNanoseconds)) / 1e9 - due.timeIntervalSince1970
            #expect(triggered >= -1e-6 && triggered < 0.001, "shot \(record.shot) triggered \(triggered) s after due")
            let exposed = try #require(sidecar.frames.first?.sensorTimestampNanoseconds)
            let after = Double(exposed) / 1e9 + wallMinusLoop - due.timeIntervalSince1970
            #expect(after > -0.01 && after < 0.3, "shot \(sidecar.timelapse?.shot ?? 0): \(after) s after due")
        }
        #expect(rig.send("timelapse status").first == "ok timelapse=off")
    }

    @Test func anIntervalShorterThanTheActionIsRefusedWithOneThatWorks() throws {
        let rig = try CaptureRig()
        // Two half-second exposures, the sensor's two frames of delay and one spare: 2.5 s.
        let reply = rig.send("timelapse start every 1s bracket manual 1/2@100 1/2@100").joined()
        #expect(reply.hasPrefix("err out-of-range") && reply.contains("the shortest interval that works is 2.5s"), "\(reply)")
        let retry = rig.send("timelapse start every 2.5s count 1 bracket manual 1/2@100 1/2@100")
        #expect(retry.contains { $0.hasPrefix("ok timelapse=started") }, "\(retry)")
    }

    @Test func aRampNeedsARawFrameAndAnExposureItCanSet() throws {
        let rig = try CaptureRig()
        _ = rig.send("set capture.format jpeg")
        #expect(rig.send("timelapse start every 5s ramp auto").joined().contains("capture.format jpeg keeps none"))
        _ = rig.send("set capture.format dng")
        #expect(rig.send("timelapse start every 5s ramp auto bracket manual 1/60@100").joined().hasPrefix("err unsupported"))
        #expect(rig.send("timelapse start every 5s ramp auto bracket ev 3 1").contains { $0.hasPrefix("ok timelapse=started") })
        #expect(rig.send("timelapse start every 5s").joined().hasPrefix("err busy"))
    }

    @Test func aCameraUnpluggedMidwayCountsTheMissedShotsAndGoesOnWhenItReturns() throws {
        let rig = try CaptureRig()
        _ = rig.send("set capture.format jpeg")
        _ = rig.send("timelapse start every 1s count 8")
        _ = rig.settle(until: { $0.contains { $0.hasPrefix("event timelapse.shot shot=2/8") } })
        rig.provider.simulateUnplug()
        rig.settle(.seconds(3))
        rig.provider.simulateReplug()
        let lines = rig.settle(until: { $0.event("timelapse.stopped") != nil }, limit: .seconds(15))
        let stopped = try #require(lines.event("timelapse.stopped"), "\(lines)")
        let fields = SimulatedBoardHarness.fields(stopped)
        let taken = Int(fields["taken"] ?? "") ?? -1, missed = Int(fields["missed"] ?? "") ?? -1
        #expect(missed >= 2 && taken + missed + (Int(fields["failed"] ?? "") ?? 0) == 8, "\(stopped)")
        let numbers = try rig.sidecars().compactMap { $0.timelapse?.shot }.sorted()
        #expect(numbers.last == 8, "shots go on after the camera returns: \(numbers)")
        #expect(Set(numbers).count == numbers.count && numbers.count == taken, "no shot twice: \(numbers)")
    }

    @Test func itStopsCleanlyWhenTheStorageRunsOutAndSaysHowManyShotsAreLeft() throws {
        // Room for the first shots only: the store refuses a bracket it has no room for.
        let probe = try CaptureRig()
        _ = probe.send("set capture.format jpeg")
        _ = probe.send("capture")
        _ = probe.settle(until: { $0.event("bracket.done") != nil })
        let shotBytes = Int64(probe.storage.files.values.reduce(0) { $0 + $1.count })
        // The store keeps room for one more frame at its full estimated size and a margin.
        let camera = try #require(probe.supervisor.camera)
        let still = camera.processedStreamSize ?? camera.activeFormat.format.size
        let reserve = CaptureStore.estimatedBytesPerFrame(BracketOutputs(rawSize: nil, rgbSize: still)) + 16_384 + (32 << 20)
        let rig = try CaptureRig(capacityBytes: reserve + shotBytes * 20)
        _ = rig.send("set capture.format jpeg")
        _ = rig.send("timelapse start every 1s")
        _ = rig.settle(until: { $0.contains { $0.hasPrefix("event timelapse.shot shot=2 ") } })
        let status = SimulatedBoardHarness.fields(try #require(rig.send("timelapse status").first))
        let left = try #require(Int(status["shots.left"] ?? ""), "\(status)")
        #expect(left > 0, "\(status)")
        let lines = rig.settle(until: { $0.event("timelapse.stopped") != nil }, limit: .seconds(120))
        let stopped = try #require(lines.event("timelapse.stopped"), "\(lines.suffix(5))")
        #expect(stopped.contains("storage full"), "\(stopped)")
        // Every image on the card is complete: named by a saved sidecar, with its size.
        let named = Set(try rig.sidecars().flatMap { s in s.frames.flatMap(\.files).map { s.folder + "/" + $0.name } })
        #expect(Set(rig.imageFiles) == named, "\(rig.imageFiles.count) images, \(named.count) in sidecars")
        #expect(rig.send("timelapse status").first == "ok timelapse=off")
    }

    @Test func theXMPSidecarIsReadByExiftool() throws {
        let url = URL(fileURLWithPath: NSTemporaryDirectory() + "tripod-xmp-\(UUID().uuidString).xmp")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(DevelopSidecar.exposureCorrection(0.734, creator: "tripod test")).write(to: url)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/exiftool")
        process.arguments = ["-s", "-s", "-s", "-XMP-crs:Exposure2012", "-XMP-crs:ProcessVersion", url.path]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        process.waitUntilExit()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(text.split(separator: "\n") == ["+0.73", "11.0"], "\(text)")
        #expect(DevelopSidecar.name(for: "2026-12-03/TRP_000001_01.dng") == "2026-12-03/TRP_000001_01.xmp")
    }

    @Test func aRestartResumesWithItsNumberingAndCountsTheShotsMissedMeanwhile() throws {
        let storage = SimulatedStorage()
        let stateStorage = SimulatedStorage()
        let first = try CaptureRig(storage: storage, state: StateStore(storage: stateStorage))
        _ = first.send("set capture.format jpeg")
        _ = first.send("timelapse start every 2s count 10")
        _ = first.settle(until: { $0.contains { $0.hasPrefix("event timelapse.shot shot=3/10") } })
        first.loop.perform { first.supervisor.requestStop(reason: "test restart") }
        first.settle(.milliseconds(200))
        #expect(stateStorage.fileExists(StateStore.File.timelapse), "kept for the next start")
        // Down for 5 s of wall clock: the shots due meanwhile are missed, the numbers go on.
        let second = try CaptureRig(storage: storage, state: StateStore(storage: stateStorage),
                                    wallClockAtStart: first.supervisor.services.wallClock().addingTimeInterval(5))
        let lines = second.settle(until: { $0.event("timelapse.stopped") != nil }, limit: .seconds(25))
        #expect(lines.contains { $0.hasPrefix("event timelapse.resumed") && $0.contains("taken=3") && $0.contains("next=4") }, "\(lines)")
        let stopped = SimulatedBoardHarness.fields(try #require(lines.event("timelapse.stopped"), "\(lines)"))
        let missed = Int(stopped["missed"] ?? "") ?? 0, taken = Int(stopped["taken"] ?? "") ?? 0
        #expect(missed >= 2 && taken + missed == 10, "\(stopped)")
        let numbers = try second.sidecars().compactMap { $0.timelapse?.shot }.sorted()
        #expect(Array(numbers.prefix(3)) == [1, 2, 3] && numbers.last == 10 && numbers.count == taken && Set(numbers).count == numbers.count, "\(numbers)")
        #expect(!stateStorage.fileExists(StateStore.File.timelapse), "forgotten once done")
    }

    /// A 14 EV sunset over half an hour of the manual clock, a shot every 20 s with `ramp auto`:
    /// the exposure follows, the XMP corrections even out what it has not caught up with, and no
    /// shot's exposure moves more than the rate limit lets it. The scene's true brightness is the
    /// simulated light's, so "corrected brightness" here is measured against the truth, not the
    /// ramp's own metering.
    @Test func aSunsetIsRampedWithoutFlickerOnceTheCorrectionsAreApplied() throws {
        let rig = try CaptureRig(simulatesLight: true)
        _ = rig.send("set capture.format dng")
        _ = rig.send("set media.dng.compression none")
        _ = rig.send("set timelapse.ramp.rate 60")
        let lightStart = rig.loop.now()
        #expect(rig.send("sim light sunset 30m").contains { $0.hasPrefix("ok light=sunset to.ev=-14 over=30m") })
        #expect(rig.send("timelapse start every 20s for 36m ramp auto").contains { $0.hasPrefix("ok timelapse=started") })
        var lines: [String] = []
        while rig.loop.now() < lightStart + .seconds(37 * 60), lines.event("timelapse.stopped") == nil {
            rig.loop.advance(by: .seconds(1), inStepsOf: .milliseconds(20), draining: rig.supervisor)
            lines += rig.console.take()
        }
        let shots = lines.filter { $0.hasPrefix("event timelapse.shot ") }.map(SimulatedBoardHarness.fields)
        #expect(shots.count >= 100, "\(shots.count) shots; \(lines.suffix(5))")
        let sidecars = try rig.sidecars().filter { $0.timelapse != nil }.sorted { ($0.timelapse?.shot ?? 0) < ($1.timelapse?.shot ?? 0) }
        let light = SimulatedLight(fromEV: 0, toEV: SimulatedLight.nightEV, start: lightStart, duration: .seconds(1800))
        var previous: (corrected: Double, shotEV: Double, time: Double)?
        var exposures: [Double] = []
        var steepest = 0.0, worstTarget = 0.0, worstRate = 0.0
        for (sidecar, event) in zip(sidecars, shots) {
            let frame = try #require(sidecar.frames.first)
            let actual = try #require(frame.actual)
            let shotEV = log2(Double(actual.exposureTimeMicroseconds) * actual.analogueGain)
            let dng = try #require(frame.files.first { $0.kind == .dng })
            let xmp = try #require(rig.storage.files[sidecar.folder + "/" + DevelopSidecar.name(for: dng.name)], "no XMP for \(dng.name)")
            let text = String(decoding: xmp, as: UTF8.self)
            let correction = try #require(text.components(separatedBy: "crs:Exposure2012=\"").dropFirst().first?.split(separator: "\"").first.flatMap { Double($0) })
            let target = try #require(Double(event["target.ev"] ?? ""))
            worstTarget = max(worstTarget, abs(shotEV + correction - target))
            // The truth: the light at the frame's time, the exposure, and the correction.
            let corrected = light.levelEV(at: MonotonicTime(nanoseconds: frame.sensorTimestampNanoseconds)) + shotEV + correction
            let time = Double(frame.sensorTimestampNanoseconds) / 1e9
            if let p = previous {
                steepest = max(steepest, abs(corrected - p.corrected))
                let allowed = 60 * (time - p.time) / 3600
                worstRate = max(worstRate, abs(shotEV - p.shotEV) - allowed)
            }
            previous = (corrected, shotEV, time)
            exposures.append(shotEV)
        }
        #expect(worstTarget <= 1.0 / 3, "a shot's corrected exposure is \(worstTarget) EV from its metered target")
        #expect(steepest < 0.05, "corrected brightness changes by up to \(steepest) EV from one shot to the next")
        #expect(worstRate < 0.02, "a shot moved \(worstRate) EV more than 60 EV/h allows")
        #expect((exposures.max() ?? 0) - (exposures.min() ?? 0) > 10, "the ramp followed the sunset: \(exposures.first ?? 0) to \(exposures.last ?? 0)")
        if let csv = ProcessInfo.processInfo.environment["TRIPOD_RAMP_CSV"] {
            var rows = ["shot,time_s,light_ev,target_ev,shot_ev,correction_ev"]
            for (sidecar, event) in zip(sidecars, shots) {
                guard let frame = sidecar.frames.first, let actual = frame.actual else { continue }
                let xmp = String(decoding: rig.storage.files[sidecar.folder + "/" + DevelopSidecar.name(for: frame.files[0].name)] ?? [], as: UTF8.self)
                let correction = xmp.components(separatedBy: "crs:Exposure2012=\"").dropFirst().first?.split(separator: "\"").first ?? "0"
                rows.append("\(sidecar.timelapse?.shot ?? 0),\(Double(frame.sensorTimestampNanoseconds - lightStart.nanoseconds) / 1e9),"
                            + "\(light.levelEV(at: MonotonicTime(nanoseconds: frame.sensorTimestampNanoseconds))),\(event["target.ev"] ?? ""),"
                            + "\(log2(Double(actual.exposureTimeMicroseconds) * actual.analogueGain)),\(correction)")
            }
            try rows.joined(separator: "\n").write(toFile: csv, atomically: true, encoding: .utf8)
        }
    }
}

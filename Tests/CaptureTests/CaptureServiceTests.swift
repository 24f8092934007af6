import Console
import Foundation
import Hardware
import Media
import SimulatedHardware
import TestSupport
import Testing
@testable import Supervisor
@testable import Capture

@Test func aButtonPressRunsTheBracketAndRecordsTheEdgeAndShutterLag() throws {
    let rig = try CaptureRig { $0.presets["ev3"] = ["ev", "3", "1"] }
    #expect(rig.send("set button.press bracket:ev3").contains("ok button.press=bracket:ev3"))
    let edge = rig.button.press()
    let lines = rig.settle(until: { $0.event("bracket.done") != nil || $0.event("bracket.failed") != nil })
    let done = try #require(lines.event("bracket.done"), "\(lines)")
    #expect(done.contains("frames=3"))
    let sidecar = try #require(try rig.sidecars().first)
    #expect(sidecar.result.status == .complete)
    #expect(sidecar.plan.summary == "bracket ev 3 +1")
    #expect(sidecar.frames.map(\.index).sorted() == [0, 1, 2])
    #expect(sidecar.startMonotonicNanoseconds != nil)
    // The edge's kernel time starts the lag; it ends when the first request is queued (the
    // debounce decides at the edge in leading-edge mode, so on the manual clock that is ≥ edge).
    let start = try #require(sidecar.startMonotonicNanoseconds)
    let lag = try #require(sidecar.shutterLagNanoseconds)
    #expect(start >= edge.nanoseconds && start < edge.nanoseconds + 50_000_000)
    #expect(lag >= 0 && lag < 50_000_000)
    for frame in sidecar.frames {
        #expect(frame.files.map(\.kind) == [.dng, .jpeg])
        for file in frame.files { #expect(rig.storage.files["\(sidecar.folder)/\(file.name)"]?.count == file.bytes) }
        #expect(frame.mismatches.isEmpty || frame.clampedSettings)
        #expect(frame.stabilization?.status == .off && frame.stabilization?.attempts == 1)
    }
    let status = rig.send("status").joined()
    #expect(status.contains("shutter.lag.p50="))
    #expect(status.contains("shutter.lag.last="))
    #expect(status.contains("brackets=\"1 saved, 0 failed\""))
}

@Test func quitDuringABracketWaitsForIt() throws {
    let rig = try CaptureRig()
    let started = rig.send("bracket ev 5 1")
    #expect(started.contains { $0.hasPrefix("ok bracket=started") }, "\(started)")
    rig.settle(.milliseconds(20))
    let quit = rig.send("quit")
    #expect(quit.contains { $0.contains("stopping after work in progress") }, "\(quit)")
    #expect(rig.supervisor.state == .stopping)
    _ = rig.settle(until: { _ in rig.supervisor.state == .stopped })
    #expect(rig.supervisor.state == .stopped)
    #expect(rig.send("capture").contains { $0.hasPrefix("err busy stopping") })
    let sidecar = try #require(try rig.sidecars().first)
    #expect(sidecar.result.status == .complete && sidecar.frames.count == 5)
}

@Test func aSecondBracketIsRefusedWhileOneRuns() throws {
    let rig = try CaptureRig()
    rig.send("bracket ev 3 1")
    let second = rig.send("capture")
    #expect(second.contains { $0.hasPrefix("err busy") }, "\(second)")
    _ = rig.settle(until: { $0.event("bracket.done") != nil })
    #expect(rig.send("capture").contains { $0.hasPrefix("ok bracket=started") })
}

@Test func storageFullBeforeABracketRefusesItAndWritesNothing() throws {
    let rig = try CaptureRig(capacityBytes: 1 << 20)
    rig.send("bracket ev 3 1")
    let lines = rig.settle(until: { $0.event("bracket.failed") != nil })
    let failed = try #require(lines.event("bracket.failed"), "\(lines)")
    #expect(failed.contains("not enough room"))
    #expect(rig.imageFiles.isEmpty)
    #expect(rig.supervisor.state == .ready)
    #expect(rig.send("status").contains { $0.hasPrefix("ok state=ready") })
}

@Test func storageFullDuringABracketKeepsEarlierFramesAndNothingPartial() throws {
    let rig = try CaptureRig()
    // Writes: counter (1), frame 1 DNG (2), JPEG (3), sidecar (4), frame 2 DNG (5) ← ENOSPC.
    rig.storage.failWrite(5, with: .noSpace)
    rig.send("bracket ev 3 1")
    let lines = rig.settle(until: { $0.event("bracket.failed") != nil })
    let failed = try #require(lines.event("bracket.failed"), "\(lines)")
    #expect(failed.contains("kept=1"))
    #expect(rig.imageFiles.count == 2)
    #expect(rig.imageFiles.allSatisfy { $0.contains("_01.") })
    #expect(!rig.storage.files.keys.contains { $0.contains(".tmp") })
    let sidecar = try #require(try rig.sidecars().first)
    #expect(sidecar.result.status == .failed && sidecar.frames.count == 1)
    #expect(rig.supervisor.state == .ready)
    // The supervisor keeps working: the next bracket saves.
    rig.send("capture")
    let next = rig.settle(until: { $0.event("bracket.done") != nil || $0.event("bracket.failed") != nil })
    #expect(next.event("bracket.done") != nil, "\(next)")
}

@Test func aDisconnectMidBracketFailsItKeepingTheFramesWritten() throws {
    let rig = try CaptureRig()
    rig.send("bracket ev 9 0.5")
    let first = rig.settle(until: { $0.contains { $0.hasPrefix("event bracket.frame") } })
    #expect(first.contains { $0.hasPrefix("event bracket.frame") })
    rig.provider.openedCamera?.simulateDisconnect()
    let lines = rig.settle(until: { $0.event("bracket.failed") != nil })
    let failed = try #require(lines.event("bracket.failed"), "\(lines)")
    #expect(failed.contains("disconnected"))
    let sidecar = try #require(try rig.sidecars().first)
    #expect(sidecar.result.status == .failed)
    #expect(!sidecar.frames.isEmpty && sidecar.frames.count < 9)
    for frame in sidecar.frames { for file in frame.files { #expect(rig.storage.files["\(sidecar.folder)/\(file.name)"] != nil) } }
    #expect(rig.supervisor.state == .ready)
}

/// libcamera may never complete the requests of a camera that went away: the bracket ended only
/// at its timeout. It ends at the disconnect now.
@Test func aDisconnectWhoseRequestsNeverCompleteFailsTheBracketAtOnce() throws {
    let rig = try CaptureRig()
    rig.send("bracket manual 1/4@100 1/2@100 1@100")
    let first = rig.settle(until: { $0.contains { $0.hasPrefix("event bracket.frame") } })
    #expect(first.contains { $0.hasPrefix("event bracket.frame") })
    let at = rig.loop.now()
    rig.provider.openedCamera?.simulateDisconnect(completingPending: false)
    let lines = rig.settle(until: { $0.event("bracket.failed") != nil }, limit: .seconds(20))
    let failed = try #require(lines.event("bracket.failed"), "\(lines)")
    #expect(failed.contains("camera disconnected mid-bracket"), "\(failed)")
    #expect(rig.loop.now() - at < .milliseconds(100), "at the disconnect, not at the timeout")
    let sidecar = try #require(try rig.sidecars().first)
    #expect(sidecar.result.status == .failed && sidecar.frames.count == 1)
    #expect(rig.supervisor.state == .ready)
}

@Test func captureFormatDecidesTheFiles() throws {
    let rig = try CaptureRig()
    rig.send("set capture.format jpeg")
    rig.send("capture")
    _ = rig.settle(until: { $0.event("bracket.done") != nil })
    #expect(!rig.imageFiles.isEmpty && rig.imageFiles.allSatisfy { $0.hasSuffix(".jpg") })
    rig.send("set capture.format dng")
    rig.send("capture")
    _ = rig.settle(until: { $0.event("bracket.done") != nil })
    #expect(rig.imageFiles.filter { $0.hasSuffix(".dng") }.count == 1)
}

@Test func bracketParsingErrorsAreClear() throws {
    func code(_ args: String) -> String? {
        do throws(ConsoleError) {
            _ = try BracketCommandParser.parse(args.split(separator: " ").map(String.init))
            return nil
        } catch { return error.code.rawValue }
    }
    #expect(code("ev") == "usage")
    #expect(code("ev 3 x") == "bad-value")
    #expect(code("ev 3 9") == "out-of-range")
    #expect(code("manual 1/60") == "bad-value")
    #expect(code("manual 1/60@lots") == "bad-value")
    #expect(code("manual") == "usage")
    #expect(code("auto now") == "usage")
    #expect(code("frob") == "usage")
    #expect(throws: Never.self) { try BracketCommandParser.parse(["ev", "0", "2"]) }
    let list = try BracketCommandParser.parse(["ev", "0", "2"])
    #expect(list.steps == [.evBias(0), .evBias(2)])
    let preset = try BracketCommandParser.parse(["ev", "5", "1"])
    #expect(preset.steps == [.evBias(0), .evBias(-1), .evBias(1), .evBias(-2), .evBias(2)])
    let manual = try BracketCommandParser.parse(["manual", "1/60@400", "1/15@800"])
    #expect(manual.steps == [.manual(durationMicroseconds: 16_667, iso: 400), .manual(durationMicroseconds: 66_667, iso: 800)])
    let rig = try CaptureRig()
    #expect(rig.send("bracket ev 40 0.1").contains { $0.hasPrefix("err out-of-range") })
}

@Test func aPressDuringABracketIsQueuedOnceAndTheLEDShowsBusyThenReady() throws {
    // Three half-second frames: the next two presses (≈ 140 ms apart) land while it runs.
    let rig = try CaptureRig { $0.presets["slow3"] = ["manual", "1/2@100", "1/2@100", "1/2@100"] }
    #expect(rig.send("set button.press bracket:slow3").contains("ok button.press=bracket:slow3"))
    rig.button.press()
    rig.button.press()  // queued: starts when the first bracket ends
    rig.button.press()  // the queue holds one, so this one is refused
    var lines: [String] = []
    lines = rig.settle(until: { $0.filter { $0.hasPrefix("event bracket.done") }.count >= 2 }, limit: .seconds(20))
    #expect(lines.filter { $0.hasPrefix("event bracket.done") }.count == 2, "\(lines)")
    #expect(lines.event("button.queued") != nil)
    #expect(lines.event("button.rejected") != nil, "\(lines)")
    #expect(try rig.sidecars().count == 2)
    // Busy blinks (100 ms on/off) while bracketing, steady on (ready) after.
    let history = rig.led.history
    #expect(history.count > 4)
    #expect(rig.led.isOn)
}

@Test func prepareConfiguresTheStillStreamAndReportsTheMaximum() throws {
    let rig = try CaptureRig()
    let reply = rig.send("prepare").joined()
    #expect(reply.hasPrefix("ok prepared=yes"), "\(reply)")
    #expect(reply.contains("bracket.max="))
    #expect(rig.supervisor.camera?.processedRole == .stillCapture)
    #expect(rig.supervisor.camera?.isStreaming == true)
    rig.supervisor.captureService.memoryBudgetBytes = 1
    #expect(rig.send("status").joined().contains("bracket.max=1"))
    #expect(rig.send("bracket ev 3 1").contains { $0.hasPrefix("err out-of-range") })
}

@Test func aZoomedCaptureRecordsItsCropInTheSidecar() throws {
    let rig = try CaptureRig()
    #expect(rig.send("set zoom 2").last == "ok zoom=2")
    rig.settle(.milliseconds(200))
    _ = rig.send("capture")
    let lines = rig.settle(until: { $0.event("bracket.done") != nil || $0.event("bracket.failed") != nil })
    #expect(lines.event("bracket.done") != nil, "\(lines)")
    let field = try #require(rig.supervisor.camera?.activeFormat.format.sensorCrop)
    let crop = try #require(try rig.sidecars().first?.frames.first?.scalerCrop)
    #expect(abs(crop.width * 2 - field.width) <= 2 && abs(crop.height * 2 - field.height) <= 2, "\(crop) of \(field)")
}

/// A DNG-only bracket longer than the request window still gets its frames back to back (regular
/// requests are held for it like any other), so it costs steps + pipeline delay frames.
@Test func aRawOnlyBracketLongerThanTheWindowRunsBackToBack() throws {
    let rig = try CaptureRig()
    #expect(rig.send("set capture.format dng").last == "ok capture.format=dng")
    _ = rig.send("bracket ev 9 1")
    let lines = rig.settle(until: { $0.event("bracket.done") != nil || $0.event("bracket.failed") != nil })
    let done = try #require(lines.event("bracket.done"), "\(lines)")
    #expect(done.contains("frames=9") && done.contains("sensor.frames=11"), "\(done)")
}

/// Brackets frame the zoomed field (the whole field at zoom 1), not the moving video-stabilization
/// crop of the viewfinder.
@Test func withStabilizationOnABracketUsesTheZoomCropNotTheMovingOne() throws {
    for zoom in ["1", "2"] {
        let board = try SimulatedBoardHarness(kind: .serial)
        #expect(board.reply("set zoom \(zoom)") == "ok zoom=\(zoom)")
        #expect(board.reply("sim motion handheld 5") == "ok motion=handheld amplitude=5")
        board.advance(.seconds(1))
        #expect(board.reply("set stabilization.video standard") == "ok stabilization.video=standard")
        board.loop.advance(by: .milliseconds(500), inStepsOf: .milliseconds(10), draining: board.supervisor)
        let camera = try #require(board.supervisor.camera)
        guard case .rectangle(let moving)? = camera.streamingControls[ControlName.scalerCrop] else {
            Issue.record("video stabilization sends no crop"); return
        }
        #expect(moving != camera.zoomCrop, "the viewfinder's crop is the stabilized one")
        #expect(board.reply("capture").hasPrefix("ok "))
        for _ in 0..<30 where !board.output.lines.joined().contains("bracket.done") {
            board.loop.advance(by: .milliseconds(100), inStepsOf: .milliseconds(10), draining: board.supervisor)
        }
        let captures = board.directory.appendingPathComponent("captures")
        let sidecar = try #require(FileManager.default.enumerator(atPath: captures.path)?.compactMap { $0 as? String }
            .first { $0.hasSuffix(".json") && $0.contains("TRP_") }, "\(board.output.lines)")
        let record = try BracketSidecar.decode(Array(Data(contentsOf: captures.appendingPathComponent(sidecar))))
        #expect(record.frames.first?.scalerCrop == camera.zoomCrop, "zoom \(zoom)")
    }
}

import Boards
import Camera
import Console
import Foundation
import Hardware
import Lifecycle
import ManualLoop
import Settings
import SimulatedHardware
import Testing
@testable import Supervisor
@testable import Capture
@testable import Controls

/// The capture service runs without a supervisor (issue 20: it called back into it through
/// `CaptureHost` and four callbacks): given a camera, a store and a work tracker, a capture marks
/// its work, emits its events and saves its files.
@Test func aCaptureRunsOnTheServiceAloneAndItsResultsFlowOut() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("board").path
    let sensor = try #require(try BoardCatalog(directories: [root]).sensor("imx708"))
    let loop = ManualEventLoop()
    let provider = SimulatedCameraProvider(loop: loop, sensor: sensor)
    let camera = try CameraController(device: try provider.open(id: provider.cameras()[0].id), sensor: sensor, loop: loop)
    let storage = SimulatedStorage()
    var idle = 0
    let work = WorkTracker(onIdle: { idle += 1 })
    var events: [ConsoleEvent] = []
    // The service reads capture.format from the settings in force.
    let settings = SettingsStore()
    try settings.update(origin: .console) { $0.captureFormat = .jpeg }
    let service = CaptureService(loop: loop, camera: CameraSlot(.attached(camera)), storage: storage, work: work, settings: InForceCaptureSettings(settings),
                                 readBracket: BracketCommandParser.read, captureFormatKey: "capture.format",
                                 emit: { events.append(ConsoleEvent($0)) })
    service.acceptsCaptures = true
    try camera.startStreaming()
    loop.advance(by: .milliseconds(200))
    let reply = try loop.perform { () throws(CaptureError) in try service.start(.single, trigger: .console) }.replyFields
    #expect(reply.first?.1 == "started", "\(reply)")
    #expect(work.contains("bracket"))
    for _ in 0..<50 where events.last?.name != "bracket.done" {
        loop.advance(by: .milliseconds(20))
        service.drainWrites()
        loop.run()
    }
    #expect(events.map(\.name) == ["bracket.started", "bracket.frame", "bracket.done"], "\(events.map(\.name))")
    #expect(!work.contains("bracket") && idle == 1, "the work mark ends with the bracket")
    #expect(storage.files.keys.contains { $0.hasSuffix(".jpg") }, "capture.format jpeg: \(storage.files.keys.sorted())")
    #expect(!storage.files.keys.contains { $0.hasSuffix(".dng") })
    service.acceptsCaptures = false
    #expect(throws: CaptureError.self) { try loop.perform { () throws(CaptureError) in try service.start(.single, trigger: .console) } }
}

/// The button's outputs at the capture service (issue 20): captures are its own; recording, the
/// half press and a failed line flow out as events, one way, and never as calls into the supervisor.
@Test func theButtonsOutputsStartCapturesHereAndTheRestFlowsOutAsEvents() throws {
    let loop = ManualEventLoop()
    var events: [ConsoleEvent] = []
    var asked: [CaptureService.ButtonEvent] = []
    let service = CaptureService(loop: loop, camera: CameraSlot(), storage: SimulatedStorage(), work: WorkTracker(), settings: InForceCaptureSettings(SettingsStore()),
                                 readBracket: BracketCommandParser.read, captureFormatKey: "capture.format",
                                 emit: { events.append(ConsoleEvent($0)) }, onButtonEvent: { asked.append($0) })
    func command(_ action: ButtonAction) -> ButtonCommand {
        ButtonCommand(action: action, gesture: .press, edgeTimestamp: loop.now(), wasQueued: false)
    }
    loop.perform {
        service.handle(buttonOutput: .perform(command(.toggleRecording)))
        service.handle(buttonOutput: .lockFocusAndExposure(edgeTimestamp: loop.now()))
        service.handle(buttonOutput: .unlockFocusAndExposure(edgeTimestamp: loop.now()))
        service.handle(buttonOutput: .lineFailed(line: "gpiochip0:17", reason: "EIO"))
    }
    #expect(asked == [.toggleRecording, .lockFocusAndExposure, .unlockFocusAndExposure,
                      .lineFailed(line: "gpiochip0:17", reason: "EIO")])
    #expect(events.isEmpty)

    loop.perform {
        service.handle(buttonOutput: .perform(command(.bracket(preset: "hdr5"))))
        service.handle(buttonOutput: .rejected(command(.capture), reason: "busy"))
    }
    #expect(events.map(\.name) == ["bracket.failed", "button.rejected"])
    #expect(events.first?.fields.first { $0.key == "reason" }?.value == "no bracket preset \"hdr5\"; `preset list` shows the saved ones")
    #expect(events.first?.fields.first { $0.key == "trigger" }?.value == "button")
    service.presets["hdr5"] = ["ev", "3", "1"]
    #expect(try service.presetPlan(named: "hdr5").steps.count == 3)
    #expect(asked.count == 4, "captures are never asked of the supervisor")
}

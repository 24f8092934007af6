import Boards
import Foundation
import Hardware
import ManualLoop
import SimulatedHardware
import Testing
import TestSupport
@testable import Startup
@testable import Supervisor
@testable import Transports

/// A display that records what it is shown.
final class RecordingDisplay: DisplayDevice, @unchecked Sendable {
    let frames = LockedValue(0)
    let showing = LockedValue(false)
    /// Threads that read `name` while the display was showing (DRMDisplay is single-threaded).
    let nameReaders = LockedValue<Set<String>>([])
    var name: String {
        if showing.current { nameReaders.withLock { _ = $0.insert(Thread.current.name ?? "?") } }
        return "recording 320x240"
    }
    var size: PixelSize? { PixelSize(width: 320, height: 240) }
    func startShowing() throws { showing.withLock { $0 = true } }
    func stopShowing() { showing.withLock { $0 = false } }
    func present(xrgb8888 pixels: [UInt32], size: PixelSize) throws {
        precondition(pixels.count == size.area)
        frames.withLock { $0 += 1 }
    }
}

@Suite struct ViewfinderWiringTests {
    @Test func cameraFramesReachTheDisplayOffTheLoopAndStopReleasesIt() throws {
        let loop = ManualEventLoop()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tripod-vf-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let display = RecordingDisplay()
        let supervisor = try startSimulatedSupervisor(on: loop, catalog: .standard(executablePath: #filePath),
                                                      capturesDirectory: directory.path) { $0.display = display }
        #expect(display.showing.current)
        // Frames are posted on the loop; the display thread draws them on its own time.
        // Until three are drawn, however slowly a busy machine runs the display thread (a minute
        // at most: a safety net, not a verdict on speed).
        _ = waitUntil {
            if display.frames.current >= 3 { return true }
            loop.advance(by: .milliseconds(50))
            return false
        }
        #expect(display.frames.current >= 3)
        let reply = loop.perform { () -> [String] in
            let out = RecordingConsoleOutput()
            let session = supervisor.attach(name: "t", kind: .local, output: out)
            supervisor.run(line: "set display.zebra on", from: session)
            return out.lines
        }
        #expect(reply == ["ok display.zebra=on"])
        // `status` names the display without touching it from the loop (the display thread owns it).
        let status = loop.perform { () -> [String] in
            let out = RecordingConsoleOutput()
            supervisor.run(line: "status", from: supervisor.attach(name: "s", kind: .local, output: out))
            return out.lines
        }
        #expect(status.last?.contains("display=\"recording 320x240\"") == true, "\(status)")
        #expect(display.nameReaders.current.isSubset(of: ["tripod-viewfinder"]), "\(display.nameReaders.current)")
        #expect(supervisor.viewfinder?.presenter.options.zebra == true)
        loop.perform { supervisor.requestStop(reason: "test") }
        _ = waitUntil(seconds: 30) { !display.showing.current }
        #expect(!display.showing.current, "stopping gives the display back")
    }
}

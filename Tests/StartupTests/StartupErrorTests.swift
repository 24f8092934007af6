import Foundation
import Hardware
import Lifecycle
import TestSupport
import Testing
@testable import Startup
@testable import Supervisor

/// Every way `tripod run` can fail to start says so in one line.
@Suite(.serialized) struct StartupErrorTests {
    private func startError(_ configure: @escaping (inout RunArguments) -> Void, board: String = "sim") -> String? {
        do {
            _ = try SimulatedBoardHarness(board: board, configure: configure)
            return nil
        } catch let error as StartupError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    @Test func unknownBoard() {
        let message = startError({ _ in }, board: "nosuchboard")
        #expect(message?.hasPrefix("unknown board \"nosuchboard\"; known boards: ") == true)
        #expect(message?.contains("sim") == true)
    }

    @Test func unreadableAndInvalidConfig() throws {
        #expect(startError({ $0.config = "/nonexistent/tripod.conf" })?.contains("/nonexistent/tripod.conf") == true)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tripod-bad-\(UUID().uuidString).conf")
        try "exposure.mode = custom\nexposure.iso = loud\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let message = startError({ $0.config = file.path })
        #expect(message?.contains("\(file.path):2") == true, "names file and line: \(message ?? "")")
    }

    @Test func configValuesOutOfTheCameraRangeStopTheStart() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tripod-range-\(UUID().uuidString).conf")
        try "exposure.iso = 12800\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(startError({ $0.config = file.path })?.contains("12800") == true)
    }

    @Test func missingConsoleDevice() {
        #expect(startError({ $0.console = "/dev/ttyNOPE9" }) == "console device /dev/ttyNOPE9 does not exist")
    }

    @Test func noCameraOnARealBoard() {
        // This machine has no camera: a libcamera board must refuse to start, naming the connector.
        let message = startError({ _ in }, board: "rpi5")
        #expect(message?.hasPrefix("no camera found on board rpi5") == true, "\(message ?? "started")")
    }

    @Test func unwritableCapturesDirectory() {
        #expect(startError({ $0.captures = "/proc/tripod-captures" })?.hasPrefix("captures directory /proc/tripod-captures") == true)
    }
}

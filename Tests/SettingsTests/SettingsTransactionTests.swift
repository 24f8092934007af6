import Camera
import Console
import Foundation
import TestSupport
import Testing
@testable import Supervisor

/// A change of several settings is one transaction (issue 20): when the camera refuses a part, the
/// parts before it are put back and nothing is stored; the camera keeps streaming.
@Suite(.serialized) struct SettingsTransactionTests {
    @Test func aRefusedPartUndoesThePartsBeforeIt() throws {
        let board = try SimulatedBoardHarness()
        board.advance(.milliseconds(300))
        let before = board.reply("get format")
        let formatBefore = try #require(board.supervisor.camera?.activeFormat)
        let exposureBefore = board.supervisor.camera?.exposureMode
        var proposed = board.supervisor.settings.current
        proposed.format = "1"                       // goes through first (a restart)
        proposed.exposureMode = .custom             // then the exposure
        proposed.exposureDurationMicroseconds = 8000
        proposed.focusMode = .locked                // the lens cannot reach 1000 D: refused last
        proposed.lensPositionDioptres = 1000
        let keys: Set<String> = ["format", "exposure.mode", "exposure.duration", "focus.mode", "focus.lens"]
        var refusal: ConsoleError?
        board.loop.perform {
            do throws(ConsoleError) { try board.supervisor.settings.commit(proposed, keys: keys, origin: .console) }
            catch { refusal = error }
        }
        #expect(refusal?.code == .outOfRange, "\(String(describing: refusal))")
        #expect(board.supervisor.camera?.activeFormat == formatBefore, "the format went back")
        #expect(board.supervisor.camera?.exposureMode == exposureBefore, "the exposure went back")
        #expect(board.reply("get format") == before, "nothing stored")
        board.advance(.milliseconds(300))
        #expect(board.supervisor.camera?.isStreaming == true)
    }

    @Test func theTypedSettingsFollowEveryChange() throws {
        let board = try SimulatedBoardHarness()
        #expect(board.supervisor.typed.exposureMode == .auto)
        #expect(board.reply("set exposure.duration 1/250").hasPrefix("ok"))
        #expect(board.supervisor.typed.exposureMode == .custom, "the implied mode is typed too")
        #expect(board.supervisor.typed.exposureDurationMicroseconds == 4000)
        #expect(board.reply("set capture.format dng").hasPrefix("ok"))
        #expect(board.supervisor.typed.captureFormat == .dng)
        #expect(board.reply("set wb.temperature 3200K").hasPrefix("ok"))
        #expect(board.supervisor.typed.whiteBalanceMode == .temperature && board.supervisor.typed.whiteBalanceKelvin == 3200)
    }
}

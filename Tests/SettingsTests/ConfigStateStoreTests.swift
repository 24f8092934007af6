import Foundation
import Hardware
import Testing
import LinuxHardware
import TestSupport
@testable import Supervisor
@testable import Settings

private struct Settings: Codable, Equatable {
    var exposureDurationMicroseconds: Int
    var lensPositionDioptres: Double
    var label: String
}

private func temporaryDirectory() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("tripod-state-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// Storage kept in a dictionary: shows StateStore needs nothing but the `Storage` protocol.
private final class MemoryStorage: Storage {
    var files: [String: [UInt8]] = [:]
    var rootDescription: String { "memory:" }
    func writeAtomically(_ bytes: [UInt8], to path: String) throws { try validateStoragePath(path); files[path] = bytes }
    func read(_ path: String) throws -> [UInt8] {
        guard let bytes = files[path] else { throw HardwareError(.notFound, "memory:\(path): absent") }
        return bytes
    }
    func fileExists(_ path: String) -> Bool { files[path] != nil }
    func list(_ directory: String) throws -> [String] { files.keys.sorted() }
    func createDirectory(_ path: String) throws {}
    func remove(_ path: String) throws { files[path] = nil }
    func freeBytes() throws -> Int64 { 1 << 30 }
}

@Suite struct ConfigStateStore {
    private let old = Settings(exposureDurationMicroseconds: 8000, lensPositionDioptres: 0, label: "old")
    private let new = Settings(exposureDurationMicroseconds: 1_000_000, lensPositionDioptres: 2.5,
                               label: String(repeating: "new ", count: 50))

    @Test func savesLoadsAndResetsOnAnyStorage() throws {
        let storage = MemoryStorage()
        let store = StateStore(storage: storage)
        #expect(try store.load(Settings.self, from: StateStore.File.settings) == nil)
        try store.save(old, as: StateStore.File.settings)
        #expect(try store.load(Settings.self, from: StateStore.File.settings) == old)
        let json = String(decoding: try storage.read("settings.json"), as: UTF8.self)
        #expect(json.contains("\"exposureDurationMicroseconds\" : 8000"))
        try store.reset(StateStore.File.settings)
        try store.reset(StateStore.File.settings)  // a second reset is not an error
        #expect(try store.load(Settings.self, from: StateStore.File.settings) == nil)
    }

    @Test func corruptStateNamesTheFile() throws {
        let storage = MemoryStorage()
        storage.files["counters.json"] = Array("{\"next\": ".utf8)
        let store = StateStore(storage: storage)
        do {
            _ = try store.load([String: Int].self, from: "counters.json")
            Issue.record("expected an error")
        } catch let error as StateStoreError {
            #expect(error.file == "memory:/counters.json")
            #expect(error.description.hasPrefix("memory:/counters.json: not valid JSON"))
        }
        storage.files["settings.json"] = Array("{\"label\": \"x\"}".utf8)
        do {
            _ = try store.load(Settings.self, from: "settings.json")
            Issue.record("expected an error")
        } catch let error as StateStoreError {
            #expect(error.reason == "missing \"exposureDurationMicroseconds\"")
        }
    }

    @Test func rejectsPathsOutsideTheStateDirectory() throws {
        let store = StateStore(storage: try PosixStorage(root: try temporaryDirectory()))
        #expect(throws: HardwareError.self) { try store.save(old, as: "../escape.json") }
        #expect(throws: HardwareError.self) { try store.save(old, as: "/etc/passwd") }
    }

    /// On the device the store sits on `PosixStorage` (its crash and kill -9 tests are in
    /// LinuxHardwareTests/PosixStorageCrashTests).
    @Test func posixStorageWritesRealFiles() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let storage = try PosixStorage(root: root)
        try StateStore(storage: storage).save(old, as: "settings.json")
        #expect(FileManager.default.fileExists(atPath: root + "/settings.json"))
        #expect(try storage.list("") == ["settings.json"])
        #expect(try storage.freeBytes() > 0)
        #expect(try StateStore(storage: try PosixStorage(root: root)).load(Settings.self, from: "settings.json") == old)
        // A save replaces the file whole and leaves no temp file behind.
        try StateStore(storage: storage).save(new, as: "settings.json")
        #expect(try StateStore(storage: storage).load(Settings.self, from: "settings.json") == new)
        #expect(try FileManager.default.contentsOfDirectory(atPath: root) == ["settings.json"])
    }
}

/// Settings saved with one camera can be refused by another (a swapped module). The supervisor
/// still starts, with the config file and defaults for those keys, and says so; the console stays
/// reachable to fix them. A config-file value the camera refuses still stops the start.
@Suite(.serialized) struct SavedSettingsFallbackTests {
    @Test func savedSettingsTheCameraRefusesGiveWayAndStatusSaysSo() throws {
        let state = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let saved = #"{"exposure.iso": "12800", "exposure.mode": "custom", "wb.gains": "1.5,1.5", "wb.mode": "gains"}"#
        try Data(saved.utf8).write(to: URL(fileURLWithPath: state + "/settings.json"))
        let board = try SimulatedBoardHarness { $0.state = state }
        #expect(board.logLines.contains { $0.contains("saved settings not applied") && $0.contains("12800") }, "\(board.logLines)")
        #expect(board.reply("get exposure.mode") == "ok exposure.mode=auto")
        #expect(board.reply("get exposure.iso") == "ok exposure.iso=100")
        #expect(board.reply("get wb.mode") == "ok wb.mode=auto", "every saved key gives way, not only the refused one")
        let status = board.reply("status")
        #expect(status.contains("warning=\"saved settings not applied"), "\(status)")
        #expect(board.reply("set exposure.mode auto").hasPrefix("ok "), "the console works")
    }

    @Test func savedSettingsTheCameraTakesApplyAsBefore() throws {
        let state = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        try Data(#"{"exposure.iso": "400", "exposure.mode": "custom"}"#.utf8).write(to: URL(fileURLWithPath: state + "/settings.json"))
        let board = try SimulatedBoardHarness { $0.state = state }
        #expect(board.reply("get exposure.iso") == "ok exposure.iso=400")
        #expect(!board.reply("status").contains("warning="))
    }
}

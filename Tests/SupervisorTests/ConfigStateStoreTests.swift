import Foundation
import Hardware
import Testing
@testable import Supervisor

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
    // Long enough that the write is split into many small chunks below.
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
        let store = StateStore(storage: try DirectoryStorage(root: try temporaryDirectory()))
        #expect(throws: HardwareError.self) { try store.save(old, as: "../escape.json") }
        #expect(throws: HardwareError.self) { try store.save(old, as: "/etc/passwd") }
    }

    @Test func directoryStorageWritesRealFiles() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let storage = try DirectoryStorage(root: root)
        try StateStore(storage: storage).save(old, as: "settings.json")
        #expect(FileManager.default.fileExists(atPath: root + "/settings.json"))
        #expect(try storage.list("") == ["settings.json"])
        #expect(try storage.freeBytes() > 0)
        #expect(try StateStore(storage: try DirectoryStorage(root: root)).load(Settings.self, from: "settings.json") == old)
    }

    /// kill -9 at every step of a save: afterwards the file holds the old state or the new one,
    /// never a mix, and the temp file a killed writer leaves is hidden and cleaned up.
    @Test func crashAtEveryStepLeavesOldOrNewNeverTorn() throws {
        // Count the steps of one save, with 16-byte writes so a crash can land mid-data.
        let probeRoot = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: probeRoot) }
        var steps: [DirectoryStorage.WriteStep] = []
        let probe = try DirectoryStorage(root: probeRoot, writeChunkBytes: 16) { steps.append($0) }
        try StateStore(storage: probe).save(new, as: "settings.json")
        #expect(steps.count > 20)
        #expect(steps.first == .openedTemporary && steps.last == .syncedDirectory)

        var sawOld = 0, sawNew = 0
        for crashStep in steps {
            let root = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: root) }
            try StateStore(storage: try DirectoryStorage(root: root)).save(old, as: "settings.json")

            let doomed = try DirectoryStorage(root: root, writeChunkBytes: 16) { step in
                if step == crashStep { throw SimulatedCrash(at: step) }
            }
            #expect(throws: SimulatedCrash.self) { try StateStore(storage: doomed).save(new, as: "settings.json") }

            // "Reboot": a fresh storage over the same directory.
            let after = try DirectoryStorage(root: root)
            let loaded = try StateStore(storage: after).load(Settings.self, from: "settings.json")
            let crashIndex = try #require(steps.firstIndex(of: crashStep))
            let renamed = crashIndex >= (try #require(steps.firstIndex(of: .renamed)))
            #expect(loaded == (renamed ? new : old), "crash after \(crashStep)")
            if loaded == old { sawOld += 1 } else if loaded == new { sawNew += 1 }
            #expect(try after.list("") == ["settings.json"])
            let stale = try after.removeStaleTemporaryFiles()
            #expect(stale.count == (renamed ? 0 : 1), "crash after \(crashStep): stale \(stale)")
            #expect(try after.removeStaleTemporaryFiles().isEmpty)
        }
        #expect(sawOld == steps.count - 2 && sawNew == 2)
    }

    @Test func failedWriteRemovesItsTempFileAndKeepsTheOldState() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try StateStore(storage: try DirectoryStorage(root: root)).save(old, as: "settings.json")
        struct DiskFull: Error {}
        let failing = try DirectoryStorage(root: root, writeChunkBytes: 16) { step in
            if case .wrote(let count) = step, count >= 64 { throw DiskFull() }
        }
        #expect(throws: DiskFull.self) { try StateStore(storage: failing).save(new, as: "settings.json") }
        #expect(try DirectoryStorage(root: root).removeStaleTemporaryFiles().isEmpty)
        #expect(try StateStore(storage: failing).load(Settings.self, from: "settings.json") == old)
    }
}

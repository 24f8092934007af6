import Foundation
import Glibc
import Hardware
import Syscalls
import Testing
import TestSupport
@testable import LinuxHardware

@Suite struct PosixStorageTests {
    @Test func writesReadsListsAndReplacesAtomically() throws {
        let (dir, _, storage) = try makeFaultInjectedStorage(subdirectory: "/captures")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try storage.createDirectory("2026-09-21")
        let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try storage.writeAtomically(bytes, to: "2026-09-21/a.dng")
        #expect(try storage.read("2026-09-21/a.dng") == bytes)
        #expect(FileManager.default.contents(atPath: dir + "/captures/2026-09-21/a.dng") == Data(bytes))
        try storage.writeAtomically([1, 2, 3], to: "2026-09-21/a.dng")
        #expect(try storage.read("2026-09-21/a.dng") == [1, 2, 3])
        #expect(try storage.list("") == ["2026-09-21"])
        #expect(try storage.list("2026-09-21") == ["a.dng"])
        #expect(try storage.list("missing").isEmpty)
        #expect(try allNames(dir + "/captures/2026-09-21") == ["a.dng"])
        #expect(storage.fileExists("2026-09-21/a.dng") && !storage.fileExists("2026-09-21/b.dng"))
        #expect(try storage.freeBytes() > 0)
        try storage.remove("2026-09-21/a.dng")
        try storage.remove("2026-09-21")
        #expect(try storage.list("").isEmpty)
    }

    @Test func theWriteIsTempThenFsyncThenRenameThenDirectoryFsync() throws {
        let (dir, sys, storage) = try makeFaultInjectedStorage()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let before = sys.log.count
        try storage.writeAtomically([9, 9], to: "x.json")
        let calls = Array(sys.log[before...])
        let temp = try #require(calls.first?.split(separator: " ").last.map(String.init))
        #expect(temp.hasPrefix(dir + "/.x.json.tmp-"))
        #expect(calls == ["open \(temp)", "write \(temp)", "fsync \(temp)", "close \(temp)",
                          "rename \(temp) -> \(dir)/x.json", "open \(dir)", "fsync \(dir)", "close \(dir)"])
    }

    @Test(arguments: [
        (FaultInjectingSyscalls.Operation.write, ENOSPC, HardwareError.Kind.noSpace),
        (.write, EIO, .io),
        (.fsync, EIO, .io),
        (.fsync, ENOSPC, .noSpace),
        (.close, EIO, .io),
        (.rename, EIO, .io),
        (.open, ENOSPC, .noSpace),
    ])
    func aFailureLeavesTheOldContentOrNothingAndNoTempFile(operation: FaultInjectingSyscalls.Operation, code: Int32,
                                                           kind: HardwareError.Kind) throws {
        let (dir, sys, storage) = try makeFaultInjectedStorage()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try storage.writeAtomically([1, 1, 1], to: "old.bin")
        sys.maximumWriteBytes = 1000  // several writes per file, so a fault can land mid-file
        let bytes = [UInt8](repeating: 7, count: 10_000)
        for target in ["old.bin", "new.bin"] {
            sys.fail(operation, call: operation == .write ? 3 : 1, errno: code)
            do {
                try storage.writeAtomically(bytes, to: target)
                Issue.record("\(operation) \(code) not reported")
            } catch let error as HardwareError {
                #expect(error.kind == kind && error.errno == code)
                #expect(error.message.contains(dir) && error.message.contains("\(operation.rawValue) "), "\(error.message)")
            }
        }
        #expect(try storage.read("old.bin") == [1, 1, 1])
        #expect(!storage.fileExists("new.bin"))
        #expect(try allNames(dir) == ["old.bin"])
    }

    @Test func eintrIsRetriedAndShortWritesAreCompleted() throws {
        let (dir, sys, storage) = try makeFaultInjectedStorage()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        sys.maximumWriteBytes = 333
        sys.fail(.open, call: 1, errno: EINTR)
        sys.fail(.write, call: 2, errno: EINTR)
        sys.fail(.write, call: 3, errno: EINTR)
        sys.fail(.fsync, call: 1, errno: EINTR)
        let bytes = (0..<5_000).map { UInt8(truncatingIfNeeded: $0) }
        try storage.writeAtomically(bytes, to: "f.bin")
        #expect(try storage.read("f.bin") == bytes)
        #expect(sys.log.filter { $0.hasPrefix("write ") }.count == 2 + (5_000 + 332) / 333)
        #expect(try allNames(dir) == ["f.bin"])
    }

    @Test func errorsNameThePathAndPathsCannotEscapeTheRoot() throws {
        let (dir, sys, storage) = try makeFaultInjectedStorage()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(throws: HardwareError.self) { try storage.writeAtomically([1], to: "../escape") }
        #expect(throws: HardwareError.self) { try storage.writeAtomically([1], to: "/etc/passwd") }
        do {
            try storage.writeAtomically([1], to: "no-such-folder/f.bin")
            Issue.record("write into a missing folder succeeded")
        } catch let error as HardwareError {
            #expect(error.kind == .notFound && error.message.contains("\(dir)/no-such-folder/.f.bin.tmp-"))
        }
        sys.fail(.statvfs, errno: EIO)
        #expect(throws: HardwareError.self) { try storage.freeBytes() }
    }

    @Test func staleTempFilesFromACrashAreHiddenAndCanBeRemoved() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let storage = try PosixStorage(root: dir)
        _ = FileManager.default.createFile(atPath: dir + "/.a.dng.tmp-1-1", contents: Data([1, 2]))
        try storage.writeAtomically([3], to: "b.dng")
        #expect(try storage.list("") == ["b.dng"])
        #expect(try storage.removeStaleTemporaryFiles(in: "") == 1)
        #expect(try allNames(dir) == ["b.dng"])
    }

    /// A crash mid-bracket leaves its temp file in the dated folder, not in the root.
    @Test func staleTempFilesInDatedFoldersAreRemovedToo() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let storage = try PosixStorage(root: dir)
        try storage.createDirectory("2026-12-01")
        _ = FileManager.default.createFile(atPath: dir + "/2026-12-01/.TRP_000001_01.dng.tmp-1-1", contents: Data([1, 2]))
        _ = FileManager.default.createFile(atPath: dir + "/.sequence.tmp-2-2", contents: Data([1]))
        try storage.writeAtomically([3], to: "2026-12-01/TRP_000001.json")
        try storage.writeAtomically([4], to: "counter")
        #expect(try storage.removeStaleTemporaryFilesInFolders() == 2)
        #expect(try storage.list("2026-12-01") == ["TRP_000001.json"])
        #expect(try allNames(dir + "/2026-12-01") == ["TRP_000001.json"])
        #expect(try storage.removeStaleTemporaryFilesInFolders() == 0)
    }

    /// The clean-up at start (BoardFactory) removes exactly the temp files writers leave: hidden,
    /// `.<name>.tmp-<pid>-<serial>`, in the root or a dated folder. Planted by name and left by a
    /// writer "killed" after its open; everything else stays, dot-files and look-alikes included.
    @Test func theStartUpCleanUpRemovesOnlyWritersLeftovers() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let storage = try PosixStorage(root: dir)
        try storage.createDirectory("2026-12-01")
        try storage.createDirectory("2026-12-02")
        let kept: [String: [String]] = [
            "": ["2026-12-01", "2026-12-02", "counter", "notes.txt"],
            "2026-12-01": [".hidden", "TRP_000001.json", "TRP_000001_01.dng", "VID_000001.mp4", "x.dng.tmp-1-1"],
            "2026-12-02": ["TRP_000002.json"],
        ]
        for (folder, names) in kept {
            for name in names where !name.hasPrefix("2026") {
                let path = folder.isEmpty ? name : folder + "/" + name
                // Storage writes no hidden names; a dot-file can only come from elsewhere.
                if name.hasPrefix(".") {
                    #expect(FileManager.default.createFile(atPath: dir + "/" + path, contents: Data(name.utf8)))
                } else {
                    try storage.writeAtomically(Array(name.utf8), to: path)
                }
            }
        }
        for planted in ["2026-12-01/.x.dng.tmp-1-1", "2026-12-01/.TRP_000001_02.dng.tmp-4242-17", ".sequence.txt.tmp-9-1"] {
            #expect(FileManager.default.createFile(atPath: dir + "/" + planted, contents: Data([1, 2, 3])))
        }
        // A writer killed after its open leaves its temp file under the name it made.
        let sys = FaultInjectingSyscalls()
        let doomed = try PosixStorage(root: dir, syscalls: RetryingSyscalls(sys))
        sys.kill(afterCalls: 1)
        #expect(throws: (any Error).self) { try doomed.writeAtomically([9, 9], to: "2026-12-02/TRP_000002_01.jpg") }
        let left = try allNames(dir + "/2026-12-02").filter { $0.contains(".tmp-") }
        #expect(left.count == 1 && left[0].hasPrefix(".TRP_000002_01.jpg.tmp-\(getpid())-"), "\(left)")

        #expect(try PosixStorage(root: dir).removeStaleTemporaryFilesInFolders() == 4)
        for (folder, names) in kept {
            #expect(try allNames(folder.isEmpty ? dir : dir + "/" + folder) == names, "\(folder)")
        }
        #expect(FileManager.default.contents(atPath: dir + "/2026-12-01/TRP_000001_01.dng") == Data("TRP_000001_01.dng".utf8))
        #expect(try PosixStorage(root: dir).removeStaleTemporaryFilesInFolders() == 0)
    }
}

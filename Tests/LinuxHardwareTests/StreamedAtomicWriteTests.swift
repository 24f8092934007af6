import Foundation
import Glibc
import Hardware
import Syscalls
import Testing
import TestSupport
@testable import LinuxHardware

private struct WriterGaveUp: Error, Equatable {}

/// `writeAtomically(to:streaming:)`: a file written front to back (with seeks back) into a temp
/// file, then fsync, rename, directory fsync: complete or absent, like the whole-buffer write.
@Suite struct StreamedAtomicWriteTests {
    private let bytes = (0..<5_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }

    /// Writes `bytes` in two parts, then seeks back and patches 4 bytes at offset 10.
    private func streamWithPatch(_ stream: any StorageStream) throws -> Int64 {
        try bytes[..<3_000].withUnsafeBytes { try stream.write($0) }
        try bytes[3_000...].withUnsafeBytes { try stream.write($0) }
        try stream.seek(to: 10)
        try [UInt8](repeating: 0xEE, count: 4).withUnsafeBytes { try stream.write($0) }
        return stream.size
    }

    private var patched: [UInt8] {
        var expected = bytes
        expected.replaceSubrange(10..<14, with: [0xEE, 0xEE, 0xEE, 0xEE])
        return expected
    }

    @Test func theFileAppearsWholeOnlyAtTheRenameAfterItsFsync() throws {
        let (dir, sys, storage) = try makeFaultInjectedStorage(maximumWriteBytes: 700)  // short writes are completed
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let before = sys.log.count
        let size = try storage.writeAtomically(to: "a.dng") { stream in
            let size = try streamWithPatch(stream)
            #expect(try allNames(dir).count == 1 && !FileManager.default.fileExists(atPath: dir + "/a.dng"), "only the temp file while writing")
            return size
        }
        let calls = Array(sys.log[before...])
        #expect(size == 5_000)
        #expect(try storage.read("a.dng") == patched)
        #expect(try allNames(dir) == ["a.dng"])
        let temp = try #require(calls.first?.split(separator: " ").last.map(String.init))
        #expect(temp.hasPrefix(dir + "/.a.dng.tmp-"))
        #expect(calls.contains("seek \(temp) 10"))
        #expect(Array(calls.suffix(6)) == ["fsync \(temp)", "close \(temp)", "rename \(temp) -> \(dir)/a.dng",
                                           "open \(dir)", "fsync \(dir)", "close \(dir)"])
    }

    /// A failed call anywhere in the write (mid-data, the seek back, fsync, close, rename) leaves
    /// the old content, or no file, and no temp file; the error names the call and the errno.
    @Test(arguments: [
        (FaultInjectingSyscalls.Operation.write, ENOSPC), (.write, EIO), (.seek, EIO), (.fsync, EIO), (.close, EIO), (.rename, EIO),
    ])
    func aFailureLeavesTheOldContentOrNothingAndNoTempFile(operation: FaultInjectingSyscalls.Operation, code: Int32) throws {
        let (dir, sys, storage) = try makeFaultInjectedStorage(maximumWriteBytes: 1_000)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try storage.writeAtomically([1, 1, 1], to: "old.bin")
        for target in ["old.bin", "new.bin"] {
            sys.fail(operation, call: operation == .write ? 4 : 1, errno: code)
            let error = #expect(throws: HardwareError.self) { _ = try storage.writeAtomically(to: target, streaming: streamWithPatch) }
            #expect(error?.errno == code && error?.message.contains(dir) == true, "\(String(describing: error))")
        }
        #expect(try storage.read("old.bin") == [1, 1, 1])
        #expect(try allNames(dir) == ["old.bin"])
    }

    /// The writer's own error (an encoder that gives up mid-file) comes back as it is, and nothing
    /// is left: the temp file is closed without an fsync and unlinked.
    @Test func aThrowFromTheWriterLeavesNothingAndIsRethrownAsItIs() throws {
        let (dir, sys, storage) = try makeFaultInjectedStorage()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let before = sys.log.count
        #expect(throws: WriterGaveUp()) {
            try storage.writeAtomically(to: "x.dng") { stream in
                _ = try streamWithPatch(stream)
                throw WriterGaveUp()
            }
        }
        #expect(try allNames(dir).isEmpty)
        let calls = Array(sys.log[before...])
        #expect(!calls.contains { $0.hasPrefix("fsync") || $0.hasPrefix("rename") })
        #expect(calls.last?.hasPrefix("unlink \(dir)/.x.dng.tmp-") == true)
    }

    /// A crash after every system call of a streamed write: afterwards the file is whole (after the
    /// rename) or absent, and what a killed writer leaves is a hidden temp file the start-up
    /// clean-up removes.
    @Test func crashAfterEveryCallLeavesTheFileWholeOrAbsent() throws {
        let (probeRoot, probeCalls, probe) = try makeFaultInjectedStorage(maximumWriteBytes: 1_000)
        defer { try? FileManager.default.removeItem(atPath: probeRoot) }
        let before = probeCalls.log.count
        _ = try probe.writeAtomically(to: "f.dng", streaming: streamWithPatch)
        let calls = Array(probeCalls.log[before...])
        let renameIndex = try #require(calls.firstIndex { $0.hasPrefix("rename ") })
        for callsBeforeCrash in 1...calls.count {
            let (root, sys, doomed) = try makeFaultInjectedStorage(maximumWriteBytes: 1_000)
            defer { try? FileManager.default.removeItem(atPath: root) }
            sys.kill(afterCalls: callsBeforeCrash)
            var threw = false
            do { _ = try doomed.writeAtomically(to: "f.dng", streaming: streamWithPatch) } catch { threw = true }
            let crash = "crash after \(calls[callsBeforeCrash - 1])"
            let renamed = callsBeforeCrash > renameIndex
            if !renamed { #expect(threw, "\(crash)") }
            let after = try PosixStorage(root: root)
            if renamed { #expect(try after.read("f.dng") == patched, "\(crash)") } else { #expect(!after.fileExists("f.dng"), "\(crash)") }
            #expect(try after.removeStaleTemporaryFiles(in: "") == (renamed ? 0 : 1), "\(crash)")
            #expect(try allNames(root) == (renamed ? ["f.dng"] : []), "\(crash)")
        }
    }
}

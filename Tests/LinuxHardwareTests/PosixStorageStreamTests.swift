import Foundation
import Glibc
import Hardware
import Testing
@testable import LinuxHardware

/// `createStream`: files that grow front to back under their final name (videos).
@Suite struct PosixStorageStreamTests {
    @Test func aStreamWritesSeeksBackAndSyncsUnderItsFinalName() throws {
        let (dir, sys, storage) = try makeFaultInjectedStorage(maximumWriteBytes: 700)  // short writes are completed
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try storage.createDirectory("v")
        let stream = try storage.createStream("v/a.mp4")
        // The entry is durable at once: the directory was fsynced right after the open.
        #expect(Array(sys.log.suffix(3)) == ["open \(dir)/v", "fsync \(dir)/v", "close \(dir)/v"])
        let bytes = (0..<5_000).map { UInt8(truncatingIfNeeded: $0 &* 3) }
        try bytes.withUnsafeBytes { try stream.write($0) }
        #expect(stream.offset == 5_000 && stream.size == 5_000)
        // Visible while growing, before any close.
        #expect(FileManager.default.contents(atPath: dir + "/v/a.mp4") == Data(bytes))
        try stream.seek(to: 10)
        try [UInt8](repeating: 0xEE, count: 4).withUnsafeBytes { try stream.write($0) }
        #expect(stream.offset == 14 && stream.size == 5_000)
        try stream.sync()
        try stream.close()
        #expect(throws: HardwareError.self) { try stream.sync() }
        var expected = bytes
        expected.replaceSubrange(10..<14, with: [0xEE, 0xEE, 0xEE, 0xEE])
        #expect(try storage.read("v/a.mp4") == expected)
        // It never replaces a file.
        #expect(throws: HardwareError.self) { try storage.createStream("v/a.mp4") }
        #expect(throws: HardwareError.self) { try storage.createStream("../escape.mp4") }
    }

    @Test(arguments: [ENOSPC, EIO])
    func aFailedWriteKeepsWhatWasWrittenAndNamesTheFile(code: Int32) throws {
        let (dir, sys, storage) = try makeFaultInjectedStorage(maximumWriteBytes: 1_000)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let stream = try storage.createStream("b.mkv")
        sys.fail(.write, call: 3, errno: code)
        sys.fail(.write, call: 1, errno: EINTR)  // retried, not reported
        let bytes = [UInt8](repeating: 5, count: 10_000)
        do {
            try bytes.withUnsafeBytes { try stream.write($0) }
            Issue.record("errno \(code) not reported")
        } catch let error as HardwareError {
            #expect(error.errno == code && error.message.contains("\(dir)/b.mkv"))
        }
        // Call 1 was the EINTR, call 2 wrote 1000 bytes, call 3 failed: those 1000 stay.
        #expect(stream.size == 1_000)
        #expect(try storage.read("b.mkv") == [UInt8](repeating: 5, count: 1_000))
        try stream.close()
    }
}

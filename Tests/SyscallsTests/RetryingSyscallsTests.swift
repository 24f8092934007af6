import Foundation
import Glibc
import Syscalls
import Testing
import TestSupport

/// The one syscall seam: `RetryingSyscalls` retries EINTR (and only EINTR) of the calls below it
/// (moved from LinuxHardwareTests' `SyscallSeamTests`, which keeps the calls moved onto the seam).
@Suite struct RetryingSyscallsTests {
    @Test func eintrIsRetriedBelowTheSeamAndOtherErrnosComeThrough() throws {
        let faults = FaultInjectingSyscalls()
        let seam = RetryingSyscalls(faults)
        let (readEnd, writeEnd) = try makePipe()
        defer { close(readEnd); close(writeEnd) }

        faults.fail(.write, errno: EINTR, times: 2)
        let bytes: [UInt8] = Array("seam".utf8)
        #expect(try bytes.withUnsafeBytes { try seam.write(writeEnd, $0) } == 4)
        #expect(faults.count(.write) == 3, "two EINTRs, then the write")

        faults.fail(.read, errno: EINTR)
        var buffer = [UInt8](repeating: 0, count: 16)
        #expect(try buffer.withUnsafeMutableBytes { try seam.read(readEnd, $0) } == 4)
        #expect(faults.count(.read) == 2)

        faults.fail(.poll, errno: EINTR)
        #expect(try seam.poll(readEnd, events: Int16(POLLIN), timeoutMilliseconds: 0) == 0, "nothing to read: timed out")
        #expect(faults.count(.poll) == 2)

        let directory = NSTemporaryDirectory() + "tripod-seam-\(UUID().uuidString)"
        faults.fail(.mkdir, errno: EINTR)
        try seam.mkdir(directory, 0o755)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        faults.fail(.realpath, errno: EINTR)
        #expect(try seam.realPath(directory + "/.") == (try GlibcSyscalls().realPath(directory)))
        #expect(faults.count(.realpath) == 2)

        // Not EINTR: through at once, the call made once.
        faults.fail(.write, errno: EIO)
        #expect(throws: SyscallError(errno: EIO)) { try bytes.withUnsafeBytes { try seam.write(writeEnd, $0) } }
        #expect(faults.count(.write) == 4)
        faults.fail(.realpath, errno: ENOENT)
        #expect(throws: SyscallError(errno: ENOENT)) { try seam.realPath(directory) }
    }

    @Test func aShortWriteIsTheCallersAndCloseIsNeverRetried() throws {
        let faults = FaultInjectingSyscalls()
        faults.maximumWriteBytes = 3
        let seam = RetryingSyscalls(faults)
        let (readEnd, writeEnd) = try makePipe()
        defer { close(readEnd) }
        let bytes: [UInt8] = Array("longer".utf8)
        #expect(try bytes.withUnsafeBytes { try seam.write(writeEnd, $0) } == 3, "the seam does not continue a short write")
        // EINTR at close: Linux has released the descriptor, so the seam reports it rather than
        // closing again (which could close a descriptor another thread just got).
        faults.fail(.close, errno: EINTR)
        #expect(throws: SyscallError(errno: EINTR)) { try seam.close(writeEnd) }
        #expect(faults.count(.close) == 1)
    }
}

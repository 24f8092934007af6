import Foundation
import Glibc
import Hardware
import ManualLoop
import Syscalls
import Testing
import TestSupport
@testable import LinuxHardware

/// The one syscall seam: `RetryingSyscalls` retries EINTR (and only EINTR) of the calls below it,
/// and the calls moved onto the seam (IIO sysfs writes, DRM's poll) retry EINTR and say clearly
/// what other errnos mean.
@Suite struct SyscallSeamTests {
    /// A pipe: (read end, write end), both closed by the caller.
    private func makePipe() throws -> (Int32, Int32) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw SyscallError(errno: errno) }
        return (fds[0], fds[1])
    }

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

    // MARK: IIO sysfs writes

    @Test func anInterruptedSysfsWriteIsRetriedAndTheBufferComesUp() throws {
        let fake = try FakeIIO()
        try fake.appendToBuffer([])
        let loop = ManualEventLoop()
        let faults = FaultInjectingSyscalls()
        faults.fail(.write, errno: EINTR, times: 3)
        faults.fail(.open, errno: EINTR)
        let found = try #require(IIOIMU.find(sysfsRoot: fake.sysfs, devRoot: fake.dev).first)
        let imu = IIOIMU(found: found, loop: loop, rateHertz: 500, syscalls: RetryingSyscalls(faults))
        let events = LockedValue<[IMUEvent]>([])
        try imu.start { e in events.withLock { $0.append(e) } }
        loop.advance(by: .milliseconds(50))
        let health = events.current.compactMap { if case .health(let h) = $0 { h } else { nil } }
        #expect(health == [.running])
        #expect(fake.read("buffer/enable") == "1" && fake.read("current_timestamp_clock") == "monotonic")
        #expect(!imu.name.contains("read-only"))
        #expect(faults.log.contains("write \(fake.device)/buffer/enable"))
        imu.stop()
        loop.run()
    }

    @Test func aSysfsWriteRefusedWithEACCESFallsBackToTheRawAttributesAndSaysSo() throws {
        let fake = try FakeIIO()
        let loop = ManualEventLoop()
        let faults = FaultInjectingSyscalls()
        faults.fail(.open, errno: EACCES)  // the first sysfs write (buffer/enable=0)
        faults.fail(.open, call: 2, errno: EACCES)  // current_timestamp_clock
        let found = try #require(IIOIMU.find(sysfsRoot: fake.sysfs, devRoot: fake.dev).first)
        let imu = IIOIMU(found: found, loop: loop, pollInterval: .milliseconds(10), syscalls: RetryingSyscalls(faults))
        let events = LockedValue<[IMUEvent]>([])
        try imu.start { e in events.withLock { $0.append(e) } }
        loop.advance(by: .milliseconds(55))
        let health = events.current.compactMap { if case .health(let h) = $0 { h } else { nil } }
        let samples = events.current.flatMap { if case .samples(let s) = $0 { s } else { [IMUSample]() } }
        #expect(health == [.running], "running on the raw attributes, never unavailable")
        #expect(samples.count >= 4)
        #expect(imu.name.hasSuffix("(read-only /sys: raw attributes polled)"), "\(imu.name)")
        #expect(fake.read("current_timestamp_clock") == "realtime", "nothing written")
        imu.stop()
        loop.run()
    }

    @Test func aSysfsWriteFailingWithEIOMakesTheIMUUnavailableNamingTheAttribute() throws {
        let fake = try FakeIIO()
        let loop = ManualEventLoop()
        let faults = FaultInjectingSyscalls()
        faults.fail(.write, call: 2, errno: EIO)  // current_timestamp_clock=monotonic
        let found = try #require(IIOIMU.find(sysfsRoot: fake.sysfs, devRoot: fake.dev).first)
        let imu = IIOIMU(found: found, loop: loop, rateHertz: 500, syscalls: RetryingSyscalls(faults))
        let events = LockedValue<[IMUEvent]>([])
        try imu.start { e in events.withLock { $0.append(e) } }
        loop.advance(by: .milliseconds(50))
        let health = events.current.compactMap { if case .health(let h) = $0 { h } else { nil } }
        guard case .unavailable(reason: let reason)? = health.first else {
            Issue.record("not unavailable: \(health)")
            return
        }
        #expect(reason.contains("write current_timestamp_clock=monotonic") && reason.contains("(errno \(EIO))"), "\(reason)")
        imu.stop()
        loop.run()
    }

    // MARK: DRM's poll

    @Test func theFlipWaitsPollRetriesEINTRAndNamesAPollError() throws {
        let (readEnd, writeEnd) = try makePipe()
        defer { close(readEnd); close(writeEnd) }
        let faults = FaultInjectingSyscalls()
        let seam = RetryingSyscalls(faults)
        #expect(write(writeEnd, "e", 1) == 1)  // an event is there to read
        faults.fail(.poll, errno: EINTR, times: 2)
        #expect(try DRMDisplay.waitForEvent(on: readEnd, of: "/dev/dri/card0", timeoutMilliseconds: 1000, syscalls: seam))
        #expect(faults.count(.poll) == 3, "two EINTRs, then the poll")

        faults.fail(.poll, errno: EIO)
        do {
            _ = try DRMDisplay.waitForEvent(on: readEnd, of: "/dev/dri/card0", timeoutMilliseconds: 1000, syscalls: seam)
            Issue.record("a failed poll passed")
        } catch {
            #expect(error.kind == .io)
            #expect(error.message.hasPrefix("/dev/dri/card0: poll for page-flip event") && error.message.contains("(errno \(EIO))"),
                    "\(error.message)")
        }
        var byte: UInt8 = 0
        #expect(read(readEnd, &byte, 1) == 1)
        #expect(try !DRMDisplay.waitForEvent(on: readEnd, of: "/dev/dri/card0", timeoutMilliseconds: 0, syscalls: seam),
                "no event: the time ran out")
    }
}

import Foundation
import Glibc
import Hardware
import ManualLoop
import Syscalls
import Testing
import TestSupport
@testable import LinuxHardware

/// The calls moved onto the one syscall seam (IIO sysfs writes, DRM's poll) retry EINTR and say
/// clearly what other errnos mean (the seam itself: SyscallsTests' `RetryingSyscallsTests`).
@Suite struct SyscallSeamTests {
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

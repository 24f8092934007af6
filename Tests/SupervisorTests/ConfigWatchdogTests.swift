import Foundation
import Hardware
import LinuxHardware
import ManualLoop
import SimulatedHardware
import Testing
@testable import Supervisor

#if canImport(Glibc)
import Glibc
#endif

/// A fake service manager: a Unix datagram socket bound in a temp dir, named by NOTIFY_SOCKET.
final class FakeNotifySocket {
    let directory: String
    let path: String
    private let fd: Int32

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tn-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        path = directory + "/notify"
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HardwareError(.other, "socket(AF_UNIX, SOCK_DGRAM) failed") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw HardwareError(.invalidArgument, "path too long") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else { throw HardwareError(.other, "bind(\(path)) failed: errno \(errno)") }
    }

    /// Every datagram received so far (non-blocking).
    func drain() -> [String] {
        var messages: [String] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count <= 0 { return messages }
            messages.append(String(decoding: buffer[..<count], as: UTF8.self))
        }
    }

    deinit {
        close(fd)
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// Sets the notification environment for one test and restores it afterwards.
private func withServiceEnvironment<R>(notifySocket: String?, watchdogMicroseconds: Int?, _ body: () throws -> R) rethrows -> R {
    let names = ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"]
    let saved = names.map { name in getenv(name).map { String(cString: $0) } }
    defer {
        for (name, value) in zip(names, saved) {
            if let value { setenv(name, value, 1) } else { unsetenv(name) }
        }
    }
    if let notifySocket { setenv("NOTIFY_SOCKET", notifySocket, 1) } else { unsetenv("NOTIFY_SOCKET") }
    if let watchdogMicroseconds {
        setenv("WATCHDOG_USEC", String(watchdogMicroseconds), 1)
        setenv("WATCHDOG_PID", String(getpid()), 1)
    } else {
        unsetenv("WATCHDOG_USEC"); unsetenv("WATCHDOG_PID")
    }
    return try body()
}

/// These tests change the process environment, so they run one at a time.
@Suite(.serialized) struct ConfigServiceNotification {
    @Test func readyAndStatusArriveOnTheSocket() throws {
        let manager = try FakeNotifySocket()
        try withServiceEnvironment(notifySocket: manager.path, watchdogMicroseconds: nil) {
            let notifier = SystemdNotifier()
            #expect(notifier.isSupervised)
            #expect(notifier.watchdogTimeout == nil)
            try notifier.notify(.status("starting camera"))
            try notifier.notify([.ready, .status("ready: 4608x2592 imx708\nline two")])
            try notifier.notify(.stopping)
            #expect(manager.drain() == [
                "STATUS=starting camera",
                "READY=1\nSTATUS=ready: 4608x2592 imx708 line two",
                "STOPPING=1",
            ])
        }
    }

    @Test func withoutNotifySocketNothingIsSentAndNothingFails() throws {
        let manager = try FakeNotifySocket()
        try withServiceEnvironment(notifySocket: nil, watchdogMicroseconds: 2_000_000) {
            let notifier = SystemdNotifier()
            #expect(!notifier.isSupervised)
            try notifier.notify([.ready, .status("x"), .watchdog, .stopping])
            #expect(manager.drain().isEmpty)
        }
    }

    @Test func aVanishedManagerIsAnErrorNamingTheCall() throws {
        try withServiceEnvironment(notifySocket: "/nonexistent-tripod/notify", watchdogMicroseconds: nil) {
            do {
                try SystemdNotifier().notify(.ready)
                Issue.record("expected an error")
            } catch let error as HardwareError {
                #expect(error.message.hasPrefix("sd_notify(\"READY=1\") to NOTIFY_SOCKET failed"))
                #expect(error.kind == .notFound)
            }
        }
    }

    @Test func watchdogTimeoutComesFromTheEnvironmentForThisProcessOnly() {
        withServiceEnvironment(notifySocket: nil, watchdogMicroseconds: 2_000_000) {
            #expect(SystemdNotifier().watchdogTimeout == .seconds(2))
            setenv("WATCHDOG_PID", String(getpid() + 1), 1)  // meant for another process
            #expect(SystemdNotifier().watchdogTimeout == nil)
        }
    }

    /// The main loop ticks every 100 ms; pings go out every half timeout (1 s of a 2 s timeout).
    /// Then the loop is stuck for 5 s (no ticks): no pings. When it runs again, one ping at once.
    @Test func pingsFollowTheLoopAndStopWhenItIsStuck() throws {
        let manager = try FakeNotifySocket()
        try withServiceEnvironment(notifySocket: manager.path, watchdogMicroseconds: 2_000_000) {
            let watchdog = Watchdog(notifier: SystemdNotifier())
            #expect(watchdog.pingInterval == .seconds(1))
            var now = MonotonicTime(nanoseconds: 5_000_000_000)
            var pingTimes: [Duration] = []
            let start = now
            for _ in 0..<30 {  // 3 s of iterations
                if try watchdog.tick(now: now) { pingTimes.append(now - start) }
                now = now + .milliseconds(100)
            }
            #expect(pingTimes == [.zero, .seconds(1), .seconds(2)])
            #expect(manager.drain() == Array(repeating: "WATCHDOG=1", count: 3))

            now = now + .seconds(5)  // stuck in a handler: the loop does not come round
            #expect(manager.drain().isEmpty)
            #expect(watchdog.pingCount == 3)

            #expect(try watchdog.tick(now: now))  // back: overdue, pings at once
            #expect(manager.drain() == ["WATCHDOG=1"])
        }
    }

    /// An idle loop still pings through the scheduled ticks, at the cadence of the loop's clock;
    /// when the loop stops running its timers (cancelled, or never getting to them) pings stop.
    @Test func scheduledTicksOnAnIdleManualLoop() throws {
        let manager = try FakeNotifySocket()
        try withServiceEnvironment(notifySocket: manager.path, watchdogMicroseconds: 4_000_000) {
            let loop = ManualEventLoop()
            let watchdog = Watchdog(notifier: SystemdNotifier())
            let ticks = try #require(watchdog.scheduleTicks(on: loop))
            loop.advance(by: .seconds(10))
            // Ticks every 1 s, pings every 2 s: t = 0, 2, 4, 6, 8, 10.
            #expect(manager.drain().count == 6)
            #expect(watchdog.lastPing == MonotonicTime(nanoseconds: 11_000_000_000))

            ticks.cancel()
            loop.advance(by: .seconds(10))
            #expect(manager.drain().isEmpty)
        }
    }

    @Test func noWatchdogNoPings() throws {
        let watchdog = Watchdog(notifier: NullServiceNotifier())
        #expect(watchdog.pingInterval == nil)
        #expect(try watchdog.tick(now: .zero) == false)
        #expect(watchdog.scheduleTicks(on: ManualEventLoop()) == nil)
    }
}

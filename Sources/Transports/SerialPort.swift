import Foundation
import Hardware
import Syscalls

/// A serial console device (/dev/ttyAMA0, /dev/ttyS0, /dev/ttyGS0) set up through termios.
public enum SerialPort {
    /// Baud rates termios can set, by number.
    public static let speeds: [Int: speed_t] = [
        9600: speed_t(B9600), 19200: speed_t(B19200), 38400: speed_t(B38400), 57600: speed_t(B57600),
        115200: speed_t(B115200), 230400: speed_t(B230400), 460800: speed_t(B460800), 921600: speed_t(B921600),
    ]

    /// Opens `path` (`open` O_RDWR|O_NOCTTY) and puts it in raw 8N1 mode at `baud`
    /// (`tcgetattr`, `cfmakeraw`, `cfsetspeed`, `tcsetattr`), through `syscalls`. The console does
    /// its own line editing.
    public static func open(_ path: String, baud: Int,
                     syscalls: any SystemCalls = SystemSyscalls()) throws(HardwareError) -> Int32 {
        guard let speed = speeds[baud] else {
            throw HardwareError(.invalidArgument, "\(path): unsupported baud rate \(baud); use one of \(speeds.keys.sorted())")
        }
        let fd: Int32
        do { fd = try syscalls.open(path, O_RDWR | O_NOCTTY | O_CLOEXEC) }
        catch { throw error.hardwareError("\(path): open") }
        var call = "tcgetattr"
        do {
            var tio = try syscalls.terminalAttributes(fd)
            cfmakeraw(&tio)  // also VMIN 1, VTIME 0: reads block for at least one byte
            tio.c_cflag |= tcflag_t(CLOCAL) | tcflag_t(CREAD)
            tio.c_cflag &= ~(tcflag_t(CSTOPB) | tcflag_t(PARENB) | tcflag_t(CRTSCTS))
            cfsetispeed(&tio, speed)
            cfsetospeed(&tio, speed)
            call = "tcsetattr"
            try syscalls.setTerminalAttributes(fd, tio)
        } catch {
            try? syscalls.close(fd)
            throw error.hardwareError("\(path): \(call)")
        }
        return fd
    }
}

/// Serves a console on a serial device, reopening it when a USB serial port goes away and comes back.
///
/// The port is set up raw (the console does its own line editing, with echo). `quit` ends the
/// session but not the port: the next byte typed starts a fresh session with a new banner.
public final class SerialConsole: @unchecked Sendable {
    public let path: String
    public let baud: Int
    private let supervisor: LoopBound<any ConsoleHost>
    private let syscalls: any SystemCalls
    /// Output queued for the port before lines are dropped (about 5 s at 115200 baud).
    public static let outputLimitBytes = 64 << 10

    public init(path: String, baud: Int, supervisor: LoopBound<any ConsoleHost>, syscalls: any SystemCalls = SystemSyscalls()) {
        self.path = path; self.baud = baud; self.supervisor = supervisor; self.syscalls = syscalls
    }

    /// Opens the port and attaches a session; on failure, retries every `retry` on the loop.
    public func connect(retry: Duration = .seconds(1)) {
        let s = supervisor.value
        guard s.isServingConsoles else { return }
        let fd: Int32
        do { fd = try SerialPort.open(path, baud: baud, syscalls: syscalls) }
        catch {
            s.log.warning("serial console \(path): \(error.message); retrying every \(retry)")
            s.loop.schedule(after: retry) { [self] in self.connect(retry: retry) }
            return
        }
        s.log.notice("serial console on \(path) at \(baud) baud, 8N1 raw")
        let shared = SharedDescriptor(fd, users: 1, syscalls: syscalls)  // the reader; each session's writer retains
        let current = LoopBound(SessionBox(session: attachSession(s, shared: shared)), loop: s.loop)
        _ = DescriptorReader(shared: shared, loop: s.loop, onBytes: { [self] bytes in
            let s = self.supervisor.value
            let box = current.value
            if box.session.isClosed { box.session = self.attachSession(s, shared: shared) }
            s.receive(bytes: bytes, from: box.session)
        }, onEnd: { [self] reason in
            let s = self.supervisor.value
            let session = current.value.session
            if !session.isClosed { session.output.close(); s.detach(session) }
            guard s.isServingConsoles else { return }
            s.log.warning("serial console \(path) went away (\(reason ?? "hang-up")); reopening")
            s.loop.schedule(after: retry) { self.connect(retry: retry) }
        })
    }

    private func attachSession(_ s: any ConsoleHost, shared: SharedDescriptor) -> ConsoleSession {
        shared.retain()
        let writer = DescriptorWriter(shared: shared, limitBytes: Self.outputLimitBytes)
        let session = s.attach(name: path, kind: .serial, output: writer, echoes: true)
        writer.write(lines: s.bannerLines())
        return session
    }

    /// The session currently served on the port (replaced after `quit`).
    private final class SessionBox {
        var session: ConsoleSession
        init(session: ConsoleSession) { self.session = session }
    }
}

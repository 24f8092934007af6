import Foundation
import Hardware

/// A serial console device (/dev/ttyAMA0, /dev/ttyS0, /dev/ttyGS0) set up through termios.
enum SerialPort {
    /// Baud rates termios can set, by number.
    static let speeds: [Int: speed_t] = [
        9600: speed_t(B9600), 19200: speed_t(B19200), 38400: speed_t(B38400), 57600: speed_t(B57600),
        115200: speed_t(B115200), 230400: speed_t(B230400), 460800: speed_t(B460800), 921600: speed_t(B921600),
    ]

    /// Opens `path` (`open` O_RDWR|O_NOCTTY) and puts it in raw 8N1 mode at `baud`
    /// (`tcgetattr`, `cfmakeraw`, `cfsetspeed`, `tcsetattr`). The console does its own line editing.
    static func open(_ path: String, baud: Int) throws(HardwareError) -> Int32 {
        guard let speed = speeds[baud] else {
            throw HardwareError(.invalidArgument, "\(path): unsupported baud rate \(baud); use one of \(speeds.keys.sorted())")
        }
        let fd = Glibc.open(path, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { throw errnoError(path, "open") }
        var tio = termios()
        guard tcgetattr(fd, &tio) == 0 else { let e = errnoError(path, "tcgetattr"); close(fd); throw e }
        cfmakeraw(&tio)  // also VMIN 1, VTIME 0: reads block for at least one byte
        tio.c_cflag |= tcflag_t(CLOCAL) | tcflag_t(CREAD)
        tio.c_cflag &= ~(tcflag_t(CSTOPB) | tcflag_t(PARENB) | tcflag_t(CRTSCTS))
        cfsetispeed(&tio, speed)
        cfsetospeed(&tio, speed)
        guard tcsetattr(fd, TCSANOW, &tio) == 0 else { let e = errnoError(path, "tcsetattr"); close(fd); throw e }
        return fd
    }

    static func errnoError(_ path: String, _ call: String) -> HardwareError {
        let code = errno
        let kind: HardwareError.Kind
        switch code {
        case ENOENT, ENODEV, ENXIO: kind = .notFound
        case EACCES, EPERM: kind = .permission
        case EBUSY: kind = .busy
        default: kind = .io
        }
        return HardwareError(kind, "\(path): \(call): \(String(cString: strerror(code)))", errno: code)
    }
}

/// Serves a console on a serial device, reopening it when a USB serial port goes away and comes back.
final class SerialConsole: @unchecked Sendable {
    let path: String
    let baud: Int
    private let supervisor: LoopBound<Supervisor>

    init(path: String, baud: Int, supervisor: LoopBound<Supervisor>) {
        self.path = path; self.baud = baud; self.supervisor = supervisor
    }

    /// Opens the port and attaches a session; on failure, retries every `retry` on the loop.
    func connect(retry: Duration = .seconds(1)) {
        let s = supervisor.value
        let fd: Int32
        do { fd = try SerialPort.open(path, baud: baud) }
        catch {
            s.log.warning("serial console \(path): \(error.message); retrying")
            s.loop.schedule(after: retry) { [self] in self.connect(retry: retry) }
            return
        }
        let writer = DescriptorWriter(descriptor: fd, limitBytes: 64 << 10)
        let session = s.attach(name: path, kind: .serial, output: writer, echoes: true)
        writer.write(lines: TripodMain.banner(s))
        let pair = LoopBound((s, session), loop: s.loop)
        _ = DescriptorReader(descriptor: fd, loop: s.loop, onBytes: { bytes in
            let (s, c) = pair.value
            s.receive(bytes: bytes, from: c)
        }, onEnd: { [self] reason in
            let (s, c) = pair.value
            s.detach(c)
            writer.close()
            close(fd)
            guard s.state != .stopping && s.state != .stopped else { return }
            s.log.warning("serial console \(path) went away (\(reason ?? "hang-up")); reopening")
            s.loop.schedule(after: retry) { self.connect(retry: retry) }
        })
    }
}

import Foundation
import Hardware
import Lifecycle
import Testing
@testable import Supervisor
@testable import Transports

/// A pty master (`/dev/ptmx`, `TIOCSPTLCK`, `TIOCGPTN`) and its slave's path.
func openPseudoTerminal() throws -> (master: Int32, slave: String) {
    let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
    guard master >= 0 else { throw StartupError("/dev/ptmx: \(String(cString: strerror(errno)))") }
    var unlock: Int32 = 0
    var number: UInt32 = 0
    guard ioctl(master, UInt(0x4004_5431), &unlock) == 0, ioctl(master, UInt(0x8004_5430), &number) == 0 else {
        close(master)
        throw StartupError("/dev/ptmx ioctl: \(String(cString: strerror(errno)))")
    }
    return (master, "/dev/pts/\(number)")
}

/// SerialPort.open on a real pseudo-terminal: 115200 8N1, raw, no flow control.
@Suite struct ConsoleSerialPortTests {

    @Test func opensRaw8N1At115200() throws {
        let (master, slave) = try openPseudoTerminal()
        defer { close(master) }
        let fd = try SerialPort.open(slave, baud: 115200)
        defer { close(fd) }
        var tio = termios()
        #expect(tcgetattr(fd, &tio) == 0)
        #expect(cfgetispeed(&tio) == speed_t(B115200))
        #expect(cfgetospeed(&tio) == speed_t(B115200))
        #expect(tio.c_cflag & tcflag_t(CSIZE) == tcflag_t(CS8))
        #expect(tio.c_cflag & tcflag_t(PARENB) == 0)
        #expect(tio.c_cflag & tcflag_t(CSTOPB) == 0)
        #expect(tio.c_cflag & tcflag_t(CRTSCTS) == 0)
        #expect(tio.c_lflag & tcflag_t(ICANON | ECHO | ISIG) == 0)
        #expect(tio.c_iflag & tcflag_t(ICRNL | IXON) == 0)
        #expect(tio.c_oflag & tcflag_t(OPOST) == 0)
        // Bytes pass untouched both ways (no CR/LF translation, no signals for Ctrl-C).
        let sent: [UInt8] = [0x03, 0x0D, 0x15, 0x7F, 0xFF, 0x00]
        #expect(sent.withUnsafeBytes { write(master, $0.baseAddress, $0.count) } == sent.count)
        var buffer = [UInt8](repeating: 0, count: 16)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        #expect(Array(buffer.prefix(max(n, 0))) == sent)
    }

    @Test func refusesAnUnknownBaudRateAndAMissingDevice() {
        #expect(throws: HardwareError.self) { try SerialPort.open("/dev/null", baud: 12345) }
        do {
            _ = try SerialPort.open("/nonexistent/ttyGS0", baud: 115200)
            Issue.record("opened a missing device")
        } catch {
            #expect(error.kind == .notFound)
            #expect(error.message.contains("/nonexistent/ttyGS0"))
        }
    }
}

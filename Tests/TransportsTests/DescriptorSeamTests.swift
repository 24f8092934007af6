import Foundation
import Hardware
import Lifecycle
import Logging
import ManualLoop
import Syscalls
import Testing
import TestSupport
@testable import Supervisor
@testable import Transports

/// Faults injected at the descriptor seam (`DescriptorSyscalls`) under the console transports: the
/// supervisor says what failed and keeps serving.
@Suite(.serialized) struct DescriptorSeamTests {
    /// The simulated board's supervisor on the manual clock, logging into `logged`.
    final class Board {
        let loop = ManualEventLoop()
        let directory = NSTemporaryDirectory() + "tripod-seam-\(UUID().uuidString)"
        let logged = LockedValue<[String]>([])
        let supervisor: Supervisor

        init() throws {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let logged = self.logged
            let log = Logger(withPriorityPrefix: false) { line in logged.withLock { $0.append(line) } }
            supervisor = try startSimulatedSupervisor(on: loop, catalog: .standard(executablePath: #filePath),
                                                      renderSize: PixelSize(width: 96, height: 54),
                                                      capturesDirectory: directory + "/captures", log: log)
        }

        deinit { try? FileManager.default.removeItem(atPath: directory) }

        /// Runs the loop (work other threads hand it, and 10 ms of simulated time a turn) until
        /// `done` holds, for at most `seconds` of real time; returns whether it did. The limit is a
        /// safety net, not a verdict on speed: a busy machine runs the transports' threads slowly.
        func pump(seconds: Double = 120, until done: () -> Bool) -> Bool {
            waitUntil(seconds: seconds, every: .milliseconds(2)) {
                if done() { return true }
                loop.advance(by: .milliseconds(10))
                return false
            }
        }

        /// Serves the control socket through `syscalls` and sends it one `tripod ctl` line from
        /// another thread, pumping the loop until the client exits; returns the client's exit status
        /// (nil if it never ended) and the socket's path.
        func askOverControlSocket(through syscalls: any SystemCalls) throws -> (status: Int32?, path: String) {
            let path = directory + "/ctl.sock"
            let control = try loop.perform { () throws(StartupError) -> ConsoleTransports.ControlSocket in
                try ConsoleTransports.serveControlSocket(path: path, supervisor: supervisor, syscalls: syscalls)
            }
            defer { control.shutdown() }
            let status = LockedValue<Int32?>(nil)
            DispatchQueue.global().async {
                let exit = ControlClient.send(line: "get exposure.iso", socketPath: path)
                status.withLock { $0 = exit }
            }
            _ = pump { status.current != nil }
            return (status.current, path)
        }
    }

    /// Reads what is there on a non-blocking descriptor.
    private func drain(_ fd: Int32) -> String {
        var text = ""
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { return text }
            text += String(decoding: buffer[0..<n], as: UTF8.self)
        }
    }

    /// Sends `line` on the pty master and waits for its `ok`.
    private func ask(_ board: Board, master: Int32, _ line: String) -> Bool {
        let bytes = Array((line + "\r").utf8)
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
        var got = ""
        return board.pump { got += drain(master); return got.contains("ok \(line.dropFirst(4))=") }
    }

    @Test func aSerialReadErrorIsReportedAndThePortReopened() throws {
        let board = try Board()
        let (master, slave) = try openPseudoTerminal()
        defer { close(master) }
        _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
        let faults = FaultInjectingSyscalls()
        board.loop.perform {
            ConsoleTransports.serveSerial(path: slave, supervisor: board.supervisor, retry: .milliseconds(100), syscalls: RetryingSyscalls(faults))
        }
        #expect(ask(board, master: master, "get exposure.iso"))
        // The reader is inside read(2) now; the read after the next line fails with EIO.
        faults.fail(.read, errno: EIO)
        #expect(ask(board, master: master, "get exposure.iso"))
        let warning = "serial console \(slave) went away (Input/output error); reopening"
        #expect(board.pump { board.logged.current.contains { $0.contains(warning) } }, "\(board.logged.current)")
        #expect(board.pump { faults.count(.open) == 2 }, "the port is opened again")
        #expect(ask(board, master: master, "get exposure.iso"), "the reopened port answers")
        #expect(board.loop.perform { board.supervisor.state } == Supervisor.State.ready)
    }

    @Test func aSerialPortThatRefusesItsSettingsIsClosedAndNamed() throws {
        let (master, slave) = try openPseudoTerminal()
        defer { close(master) }
        let faults = FaultInjectingSyscalls()
        faults.fail(.setTerminalAttributes, errno: EIO)
        do {
            let fd = try SerialPort.open(slave, baud: 115200, syscalls: RetryingSyscalls(faults))
            close(fd)
            Issue.record("opened a port whose settings failed")
        } catch {
            #expect(error.kind == .io)
            #expect(error.message.contains("\(slave): tcsetattr") && error.message.contains("(errno \(EIO))"), "\(error.message)")
        }
        // EINTR at open is retried, and the port then opens.
        faults.fail(.open, errno: EINTR)
        let fd = try SerialPort.open(slave, baud: 115200, syscalls: RetryingSyscalls(faults))
        close(fd)
        #expect(faults.count(.open) == 3)
    }

    @Test func runningOutOfDescriptorsAtAcceptIsLoggedAndAcceptingGoesOn() throws {
        let board = try Board()
        let faults = FaultInjectingSyscalls()
        faults.fail(.accept, errno: EMFILE, times: 2)
        let (status, path) = try board.askOverControlSocket(through: RetryingSyscalls(faults))
        #expect(status != nil, "a client is served once accept works again")
        #expect(status == 0)
        #expect(faults.count(.accept) >= 3)
        let warnings = board.logged.current.filter { $0.contains("control socket \(path): accept: Too many open files (errno \(EMFILE))") }
        #expect(warnings.count == 1, "said once, not at every retry: \(board.logged.current)")
    }

    /// EINTR at the control socket's accept, its reader's read and its writer's send is retried
    /// by the seam: the client is answered and nothing is logged.
    @Test func interruptedAcceptReadAndSendAreRetriedByTheSeam() throws {
        let board = try Board()
        let faults = FaultInjectingSyscalls()
        faults.fail(.accept, errno: EINTR)
        faults.fail(.read, errno: EINTR, times: 2)
        faults.fail(.send, errno: EINTR, times: 2)
        let (status, _) = try board.askOverControlSocket(through: RetryingSyscalls(faults))
        #expect(status == 0, "answered")
        #expect(faults.count(.accept) >= 2 && faults.count(.read) >= 3 && faults.count(.send) >= 3)
        #expect(!board.logged.current.contains { $0.contains("control socket") }, "\(board.logged.current)")
    }

    /// The log's write(2) goes through the seam: EINTR is retried, a short write continued, and a
    /// failed write (EPIPE: nobody reads stderr) drops the line without trapping.
    @Test func theLogWriteRetriesEINTRContinuesShortWritesAndDropsALineItCannotWrite() throws {
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
        let faults = FaultInjectingSyscalls()
        faults.maximumWriteBytes = 5
        faults.fail(.write, errno: EINTR, times: 2)
        let log = Logger.descriptor(fds[1], withPriorityPrefix: true, syscalls: RetryingSyscalls(faults))
        log.warning("the IMU is gone")
        #expect(drain(fds[0]) == "<4>the IMU is gone\n")
        #expect(faults.count(.write) == 2 + 4, "two EINTRs, then 19 bytes 5 at a time")

        faults.fail(.write, errno: EPIPE)
        #expect(!Logger.writeIgnoringErrors(fds[1], "lost\n", syscalls: RetryingSyscalls(faults)))
        #expect(drain(fds[0]) == "", "the line is dropped")
        log.info("and logging goes on")
        #expect(drain(fds[0]) == "<6>and logging goes on\n")
    }
}

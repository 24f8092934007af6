import Foundation
import Testing
import Hardware
@testable import Supervisor
@testable import Transports
import TestSupport

/// The control socket against a real `tripod run` process: clients that hang up, and too many clients.
@Suite(.serialized) struct ControlSocketProcessTests {
    typealias RunningTripod = TestSupport.RunningTripod

    /// A client that sends commands and hangs up before reading the replies killed the supervisor
    /// with SIGPIPE (status 141).
    @Test func clientsThatHangUpBeforeTheRepliesDoNotKillTheSupervisor() throws {
        let tripod = try RunningTripod()
        let first = tripod.ask("status")
        #expect(first?.hasPrefix("ok") == true, "\(first ?? "nil")")
        for _ in 0..<20 {
            guard let fd = RunningTripod.connect(tripod.socket) else { Issue.record("cannot connect"); return }
            RunningTripod.send(fd, String(repeating: "help\nformats\nstatus\n", count: 20))
            // Reset on close (SO_LINGER 0): the replies meet a socket that is gone.
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
            close(fd)
        }
        // The supervisor still works through the replies to the clients that left (1200 lines): a
        // busy machine makes that slow, not wrong. Ask until it answers, while it runs (each ask
        // waits 10 s; two minutes at most).
        var status: String?
        let deadline = Date().addingTimeInterval(120)
        while status?.hasPrefix("ok") != true && tripod.process.isRunning && Date() < deadline { status = tripod.ask("status") }
        #expect(tripod.process.isRunning, "exit status \(tripod.process.isRunning ? 0 : tripod.process.terminationStatus)")
        #expect(status?.hasPrefix("ok") == true, "\(status ?? "nil")")
        tripod.process.terminate()
        tripod.process.waitUntilExit()
        #expect(tripod.process.terminationReason == .exit && tripod.process.terminationStatus == 0)
    }

    /// Each client costs two threads, and there was no limit.
    @Test func theNinthClientIsRefusedClearlyAndASlotFreesWhenOneLeaves() throws {
        let tripod = try RunningTripod()
        var held: [Int32] = []
        defer { held.forEach { close($0) } }
        // Eight clients held at once. A connection that went before them (the start-up probe, an
        // earlier ask) frees its slot once the supervisor has seen it leave, which a busy machine
        // makes late: a busy refusal of one of the eight is asked again until then (a minute at most).
        let holdDeadline = Date().addingTimeInterval(60)
        while held.count < 8 {
            guard let fd = RunningTripod.connect(tripod.socket) else { Issue.record("cannot connect"); return }
            RunningTripod.send(fd, "status\n")
            let reply = RunningTripod.readReply(fd)
            if reply?.hasPrefix("ok") == true { held.append(fd); continue }
            close(fd)
            guard reply?.hasPrefix("err busy") == true, Date() < holdDeadline else {
                Issue.record("client \(held.count + 1) of 8: \(reply ?? "nil")"); return
            }
            usleep(20_000)
        }
        let refused = tripod.ask("status")
        #expect(refused?.hasPrefix("err busy 8 control clients are connected") == true, "\(refused ?? "nil")")
        close(held.removeLast())
        // The slot frees once the supervisor has seen the client leave: ask until then (a minute at
        // most, so a busy machine is not a failure).
        var answered: String?
        _ = waitUntil(every: .milliseconds(100)) {
            answered = tripod.ask("status")
            return answered?.hasPrefix("ok") == true
        }
        #expect(answered?.hasPrefix("ok") == true, "\(answered ?? "nil")")
    }
}

import Foundation
import Testing
@testable import Fleet

/// The fleet's link without a broker: the inbox's lanes and the group's topics.
@Suite struct FleetUnitTests {
    /// Beyond its capacity a lane drops its oldest message: what comes after a flood is kept.
    @Test func theInboxAsksForOneHopPerBurstAndDropsMessagesBeyondItsCapacity() {
        let inbox = FleetInbox(commandCapacity: 3, groupCapacity: 3, maximumGroupPayloadBytes: 16)
        let message = MosquittoEvent.message(topic: "t", payload: [1], retained: false)
        #expect(inbox.push(.init(connection: 1, event: .connected(code: 0)), lane: .commands))
        for _ in 0..<4 { #expect(!inbox.push(.init(connection: 1, event: message), lane: .commands)) }
        // Connection events are kept even when the inbox is full of messages.
        #expect(!inbox.push(.init(connection: 1, event: .disconnected(code: 7)), lane: .commands))
        let taken = inbox.drain()
        #expect(taken.commands.map(\.event) == [.connected(code: 0), message, message, message, .disconnected(code: 7)])
        #expect(taken.droppedCommands == 1)
        #expect(inbox.push(.init(connection: 2, event: message), lane: .commands), "after a drain the next push asks for a hop again")
        _ = inbox.drain()
        for n in 0..<10 { _ = inbox.push(.init(connection: 1, event: .message(topic: "t", payload: [UInt8(n)], retained: false)), lane: .commands) }
        let latest = inbox.drain()
        #expect(latest.commands.map(\.event) == (7..<10).map { MosquittoEvent.message(topic: "t", payload: [UInt8($0)], retained: false) })
        #expect(latest.droppedCommands == 7)
    }

    /// Finding (issue 37): the group's status shared one inbox with the commands. A flood of status
    /// fills only the group's lane; the commands behind it are all kept and handed over first, and a
    /// payload over the limit is dropped and counted.
    @Test func groupTrafficCannotCrowdOutCommands() {
        let inbox = FleetInbox(commandCapacity: 4, groupCapacity: 8, maximumGroupPayloadBytes: 16)
        let status = MosquittoEvent.message(topic: "tripod/g/x/status", payload: [1], retained: false)
        for _ in 0..<100 { _ = inbox.push(.init(connection: 1, event: status), lane: .group) }
        _ = inbox.push(.init(connection: 1, event: .message(topic: "tripod/g/x/status", payload: Array(repeating: 1, count: 17), retained: false)), lane: .group)
        let command = MosquittoEvent.message(topic: "tripod/g/cmd", payload: [2], retained: false)
        for _ in 0..<4 { _ = inbox.push(.init(connection: 1, event: command), lane: .commands) }
        let taken = inbox.drain()
        #expect(taken.commands.count == 4 && taken.droppedCommands == 0)
        #expect(taken.group.count == 8 && taken.droppedGroup == 92 && taken.droppedOversize == 1)
        let topics = FleetTopics(group: "g", rig: "r1")
        #expect(topics.lane(of: "tripod/g/cmd") == .commands && topics.lane(of: "tripod/g/r1/cmd") == .commands)
        #expect(topics.lane(of: "tripod/g/r2/cancel") == .commands)
        #expect(topics.lane(of: "tripod/g/r2/status") == .group && topics.lane(of: "tripod/g/r2/reply") == .group)
    }

    /// A long flood of status through a small group lane: the newest are kept, in order, however many
    /// times the lane dropped its oldest (and cut what it dropped); a connection event pushed on the
    /// group lane waits with the commands, never dropped.
    @Test func theGroupLaneKeepsTheNewestThroughALongFlood() {
        let inbox = FleetInbox(commandCapacity: 4, groupCapacity: 8, maximumGroupPayloadBytes: 16)
        func status(_ n: Int) -> MosquittoEvent { .message(topic: "tripod/g/x\(n)/status", payload: [1], retained: false) }
        for n in 0..<1000 { _ = inbox.push(.init(connection: 1, event: status(n)), lane: .group) }
        _ = inbox.push(.init(connection: 1, event: .disconnected(code: 7)), lane: .group)
        #expect(inbox.waiting.group == 8 && inbox.waiting.commands == 1)
        let taken = inbox.drain()
        #expect(taken.group.map(\.event) == (992..<1000).map(status))
        #expect(taken.droppedGroup == 992)
        #expect(taken.commands.map(\.event) == [.disconnected(code: 7)])
        for n in 0..<3 { _ = inbox.push(.init(connection: 1, event: status(n)), lane: .group) }
        #expect(inbox.drain().group.map(\.event) == (0..<3).map(status), "after a drain the lane starts empty")
    }

    /// A rig's state goes the way of its status and replies: the group lane, whose size bound drops
    /// and counts a payload over the limit (the broker tests send oversized status and replies).
    @Test func anOversizedStateIsDroppedAndCounted() {
        let topics = FleetTopics(group: "g", rig: "r1")
        #expect(topics.lane(of: "tripod/g/r2/state") == .group)
        let inbox = FleetInbox(commandCapacity: 4, groupCapacity: 8, maximumGroupPayloadBytes: 16)
        _ = inbox.push(.init(connection: 1, event: .message(topic: "tripod/g/r2/state", payload: Array(repeating: 0x6F, count: 17), retained: true)), lane: .group)
        _ = inbox.push(.init(connection: 1, event: .message(topic: "tripod/g/r2/state", payload: Array("online".utf8), retained: true)), lane: .group)
        let taken = inbox.drain()
        #expect(taken.droppedOversize == 1 && taken.group.count == 1)
    }

    @Test func topicsAreTheIssuesNames() {
        let t = FleetTopics(group: "studio", rig: "cam07")
        #expect(t.state == "tripod/studio/cam07/state")
        #expect(t.status == "tripod/studio/cam07/status")
        #expect(t.events == "tripod/studio/cam07/events")
        #expect(t.groupCommands == "tripod/studio/cmd")
        #expect(t.rigCommands == "tripod/studio/cam07/cmd")
        #expect(t.reply == "tripod/studio/cam07/reply")
    }
}

/// The clock's sync state (adjtimex), read from the kernel.
@Suite struct FleetClockTests {
    /// adjtimex's answer read as the kernel means it: TIME_ERROR or STA_UNSYNC is unsynchronised.
    @Test func adjtimexStateIsReadFromItsReturnValueAndStatusBit() {
        let synced = KernelClockSync.state(returned: 0, status: 0x2001, estimatedError: 120, maximumError: 4000)
        #expect(synced == ClockSyncState(synchronised: true, estimatedErrorMicroseconds: 120, maximumErrorMicroseconds: 4000))
        #expect(!KernelClockSync.state(returned: 5, status: 0, estimatedError: 0, maximumError: 16_000_000).synchronised)
        #expect(!KernelClockSync.state(returned: 0, status: 0x0041, estimatedError: 0, maximumError: 16_000_000).synchronised)
        // The real call, with modes 0 (reads only): it answers on Linux without privilege.
        #expect(KernelClockSync().read() != nil)
    }
}

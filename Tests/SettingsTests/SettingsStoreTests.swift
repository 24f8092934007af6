import Console
import Testing
@testable import Settings

/// The one commit path: propose → validate → apply as one transaction → store → notify.
@Suite struct SettingsStoreTests {
    /// A store with participants that log what they were asked, and refuse where told.
    final class Rig {
        /// What the participants and the observer saw; the settings in force as last notified.
        final class Journal {
            var log: [String] = []
            var notified: [SettingsChange] = []
            var refuse: Set<String> = []
            var inForce = TypedSettings.defaults
        }
        let journal = Journal()
        let store: SettingsStore
        var log: [String] {
            get { journal.log }
            set { journal.log = newValue }
        }
        var notified: [SettingsChange] { journal.notified }
        var refuse: Set<String> {
            get { journal.refuse }
            set { journal.refuse = newValue }
        }

        init(participants: [String] = ["a", "b", "c"]) {
            let journal = self.journal
            store = SettingsStore(followers: .init(participants: participants.map { name in
                .init(name: name) { change throws(ConsoleError) in
                    let direction = change.new == journal.inForce ? "back" : "apply"
                    journal.log.append("\(name) \(direction) \(change.keys.sorted().joined(separator: ","))")
                    if journal.refuse.contains(name), direction == "apply" { throw ConsoleError(.outOfRange, "\(name) refuses") }
                }
            }, observers: [{ change in
                journal.notified.append(change)
                journal.inForce = change.new
            }]))
        }
    }

    @Test func aChangeReachesEveryParticipantInOrderThenIsStoredAndNotifiedOnce() throws {
        let rig = Rig()
        let change = try rig.store.set("exposure.duration", "1/250")
        #expect(rig.log == ["a apply exposure.duration,exposure.mode", "b apply exposure.duration,exposure.mode",
                            "c apply exposure.duration,exposure.mode"])
        #expect(rig.store.current.exposureDurationMicroseconds == 4000 && rig.store.current.exposureMode == .custom,
                "the parameter selects its mode")
        #expect(rig.notified.count == 1 && rig.notified[0].old == .defaults && rig.notified[0].new == rig.store.current)
        #expect(change.fields.map(\.0) == ["exposure.mode", "exposure.duration"])
    }

    @Test func aRefusalPutsBackTheParticipantsBeforeItInReverseOrderAndStoresNothing() {
        let rig = Rig()
        rig.refuse = ["c"]
        #expect(throws: ConsoleError.self) { try rig.store.set("zoom", "2") }
        #expect(rig.log == ["a apply zoom", "b apply zoom", "c apply zoom", "b back zoom", "a back zoom"])
        #expect(rig.store.current == .defaults, "nothing stored")
        #expect(rig.notified.isEmpty, "nothing notified")
    }

    /// Other threads read the settings in force through `inForce`: each commit is there when the
    /// observers hear of it, a refused change never is, and a device's fallback after a refusal is.
    @Test func theSettingsInForceFollowEachCommitAndNeverARefusal() throws {
        let rig = Rig()
        let inForce = rig.store.inForce
        #expect(inForce.current == .defaults)
        try rig.store.set("display.zebra", "on")
        #expect(inForce.current.display.zebra && inForce.read(\.display.zebra))
        rig.refuse = ["b"]
        #expect(throws: ConsoleError.self) { try rig.store.set("fleet.rig", "elsewhere") }
        #expect(inForce.current == rig.store.current && inForce.current.fleet.rig != "elsewhere", "a refusal is never seen")
        // Published before the observers run: what they hear is already readable.
        final class Witness {
            var inForce: SettingsInForce?
            var seen: [Bool] = []
        }
        let witness = Witness()
        let watched = SettingsStore(followers: .init(observers: [{ change in witness.seen.append(witness.inForce?.current == change.new) }]))
        witness.inForce = watched.inForce
        try watched.set("zoom", "2")
        #expect(witness.seen == [true])
        // A device's fallback after a refusal is stored, so it is what other threads read.
        let camera = SettingsStore(followers: .init(participants: [.init(name: "camera", apply: { change throws(ConsoleError) in
            if change.new.format == "3" { throw ConsoleError(.device, "restart failed") }
        }, inForce: { $0.format = "1280x720@120" })]))
        #expect(throws: ConsoleError.self) { try camera.set("format", "3") }
        #expect(camera.inForce.current.format == "1280x720@120")
    }

    /// The `trigger.*` texts go through module Triggers' parsers (TriggerCodecs.swift): canonical
    /// text back, and a bad text refused `bad-value` with the key and the parser's words.
    @Test func triggerTextsAreReadByTheTriggersParsersAndRefusedInTheirWords() throws {
        let rig = Rig(participants: [])
        let change = try rig.store.set("trigger.motion.zone", "0, 0.5, 0.5, 0.5 ; 0.5,0,0.5,0.25")
        #expect(change.fields.first { $0.0 == "trigger.motion.zone" }?.1 == "0,0.5,0.5,0.5;0.5,0,0.5,0.25")
        _ = try rig.store.set("trigger.action", "record 30s")
        _ = try rig.store.set("trigger.schedule", "18:00-07:00")
        #expect(rig.store.current.trigger.action == .record(seconds: 30) && rig.store.current.trigger.schedule.description == "18:00-07:00")
        for (key, text, words) in [("trigger.motion.zone", "0.6,0,0.5,1", "X+W and Y+H at most 1"),
                                   ("trigger.action", "explode", "record SECONDS"), ("trigger.schedule", "25:00-07:00", "HH:MM-HH:MM")] {
            do { _ = try rig.store.set(key, text); Issue.record("\(key) \(text) was taken") } catch {
                #expect(error.code == .badValue && error.message.hasPrefix("\(key): ") && error.message.contains(words), "\(error)")
            }
        }
        #expect(rig.store.current.trigger.action == .record(seconds: 30), "a refused text changes nothing")
    }

    @Test func badTextIsRefusedBeforeAnyParticipantIsAsked() {
        let rig = Rig()
        #expect(throws: ConsoleError.self) { try rig.store.set("zoom", "lots") }
        #expect(throws: ConsoleError.self) { try rig.store.set("no.such.key", "1") }
        #expect(rig.log.isEmpty && rig.notified.isEmpty)
    }

    @Test func whatADeviceKeptAfterARefusalIsStoredAndNotified() {
        let notified = Rig.Journal()
        let store = SettingsStore(followers: .init(participants: [.init(name: "camera", apply: { change throws(ConsoleError) in
            if change.new.format == "3" { throw ConsoleError(.device, "restart failed") }
        }, inForce: { $0.format = "1280x720@120" })], observers: [{ notified.notified.append($0) }]))
        #expect(throws: ConsoleError.self) { try store.set("format", "3") }
        #expect(store.current.format == "1280x720@120", "the format in force is what the setting says")
        #expect(notified.notified.count == 1 && notified.notified[0].origin == .revert && notified.notified[0].keys == ["format"])
    }

    @Test func resetReturnsToTheBaseTouchingOnlyWhatDiffers() throws {
        let rig = Rig(participants: ["a"])
        try rig.store.set("video.hdr", "off", origin: .configFile)  // the config file's
        rig.store.adoptCurrentAsBase()
        let base = rig.store.current
        try rig.store.set("display.zebra", "on")
        try rig.store.set("video.fps", "24")
        #expect(rig.store.changedFromBase == ["display.zebra": "on", "video.fps": "24"])
        rig.log = []
        let change = try rig.store.reset(requestedBy: .serial)
        #expect(change.keys == ["display.zebra", "video.fps"])
        #expect(rig.store.current == base)
        #expect(rig.log == ["a apply display.zebra,video.fps"])
    }

    @Test func restoredSettingsAreRevertedToWhatTheyReplaced() throws {
        let rig = Rig(participants: [])
        try rig.store.update(origin: .configFile) { $0.exposureISO = 200 }
        rig.store.adoptCurrentAsBase()
        let base = rig.store.current
        let skipped = rig.store.restore(saved: ["exposure.iso": "800", "zoom": "huge"])
        #expect(skipped.map(\.key) == ["zoom"])
        #expect(rig.store.current.exposureISO == 800 && rig.store.current.exposureMode == .custom)
        #expect(rig.store.hasRestored)
        #expect(try rig.store.revertRestored() == ["exposure.iso", "exposure.mode"])
        #expect(rig.store.current == base && !rig.store.hasRestored)
    }

    @Test func typedUpdatesTouchTheKeysTheyChange() throws {
        let rig = Rig(participants: ["a"])
        try rig.store.update(origin: .grayWorld) {
            $0.whiteBalanceMode = .gains
            $0.whiteBalanceGains = .init(red: 1.9, blue: 1.6)
        }
        #expect(rig.log == ["a apply wb.gains,wb.mode"])
        #expect(rig.notified.last?.origin == .grayWorld)
        rig.log = []
        try rig.store.update(origin: .halfPress) { _ in }
        #expect(rig.log.isEmpty, "an edit that changes nothing asks no one")
    }
}

/// The table: each key once, its default round-trips through its own format and parse.
@Suite struct SettingsTableTests {
    @Test func everyDefaultRoundTripsAndKeysAreUnique() throws {
        #expect(Set(SettingsTable.all.map(\.key)).count == SettingsTable.all.count)
        for setting in SettingsTable.all {
            var parsed = TypedSettings.defaults
            try setting.set(setting.defaultText, in: &parsed)
            #expect(!setting.differs(parsed, .defaults), "\(setting.key): \(setting.defaultText)")
            #expect(setting.text(in: parsed) == setting.defaultText)
        }
    }

    @Test func canonicalTextIsWhatGetShows() throws {
        let cases = [("exposure.duration", "16.7ms", "16.7ms"), ("exposure.duration", "0.004", "1/250"), ("exposure.iso", "ISO 400", "400"),
                     ("exposure.bias", "1.5", "+1.5"), ("wb.temperature", "5600", "5600K"), ("focus.lens", "0.5m", "2"),
                     ("video.bitrate", "2500k", "2.5M"), ("video.bitrate", "800000", "800k"), ("button.long", "1200", "1200ms"),
                     ("button.press", "bracket:hdr5", "bracket:hdr5"), ("button.press", "none", "none"), ("zoom", "2x", "2"),
                     ("video.split", "10min", "10"), ("format", "1920X1080@30", "1920x1080@30")]
        for (key, text, canonical) in cases {
            #expect(try SettingsTable.validate(key: key, value: text) == canonical, "\(key) \(text)")
        }
    }
}

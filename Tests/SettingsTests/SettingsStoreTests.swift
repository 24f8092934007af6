import Console
import Testing
@testable import Settings

/// The one commit path: propose → validate → apply as one transaction → store → notify.
@Suite struct SettingsStoreTests {
    /// A store with participants that log what they were asked, and refuse where told.
    final class Rig {
        let store = SettingsStore()
        var log: [String] = []
        var notified: [SettingsChange] = []
        var refuse: Set<String> = []

        init(participants: [String] = ["a", "b", "c"]) {
            for name in participants {
                store.participate(.init(name: name) { [unowned self] change throws(ConsoleError) in
                    let direction = change.new == self.store.current ? "back" : "apply"
                    self.log.append("\(name) \(direction) \(change.keys.sorted().joined(separator: ","))")
                    if self.refuse.contains(name), direction == "apply" { throw ConsoleError(.outOfRange, "\(name) refuses") }
                })
            }
            store.observe { [unowned self] in self.notified.append($0) }
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
        let store = SettingsStore()
        var notified: [SettingsChange] = []
        store.participate(.init(name: "camera", apply: { change throws(ConsoleError) in
            if change.new.format == "3" { throw ConsoleError(.device, "restart failed") }
        }, inForce: { $0.format = "1280x720@120" }))
        store.observe { notified.append($0) }
        #expect(throws: ConsoleError.self) { try store.set("format", "3") }
        #expect(store.current.format == "1280x720@120", "the format in force is what the setting says")
        #expect(notified.count == 1 && notified[0].origin == .revert && notified[0].keys == ["format"])
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

import Testing
import Console
@testable import Settings

/// The fleet's settings in the table: a broker address, a rig's name, the CA's path.
@Suite struct FleetSettingsTests {
    @Test func fleetSettingsParseAndRefuseWhatIsNotAnAddressOrAName() throws {
        let store = SettingsStore()
        #expect(store.current.fleet.broker == nil)
        #expect(SettingsTable.fleetBroker.text(in: store.current) == "off")
        #expect(SettingsTable.fleetRig.text(in: store.current) == FleetSettings.hostName())
        try store.set("fleet.broker", "mqtt://broker.local:1883")
        #expect(store.current.fleet.broker == BrokerAddress(scheme: .mqtt, host: "broker.local", port: 1883))
        try store.set("fleet.broker", "mqtts://10.0.0.2:8883")
        #expect(SettingsTable.fleetBroker.text(in: store.current) == "mqtts://10.0.0.2:8883")
        for bad in ["http://x:1", "mqtt://x", "mqtt://x:0", "mqtt://:1883", "mqtt://a/b:1"] {
            #expect(throws: ConsoleError.self, "\(bad)") { try store.set("fleet.broker", bad) }
        }
        for bad in ["a/b", "+", "#", "", String(repeating: "x", count: 65)] {
            #expect(throws: ConsoleError.self, "\(bad)") { try store.set("fleet.rig", bad) }
        }
        #expect(throws: ConsoleError.self) { try store.set("fleet.ca", "relative.pem") }
        try store.set("fleet.broker", "off")
        #expect(store.current.fleet.broker == nil)
    }
}

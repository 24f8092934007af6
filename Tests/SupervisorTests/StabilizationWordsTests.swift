import Stabilization
import Supervisor
import Testing

/// Stabilization's events as console lines (moved with the wording from StabilizationTests'
/// wiring example, which now words them in miniature itself).
@Suite("Stabilization words")
struct StabilizationWordsTests {
    @Test("each event: the setting's key and its fields")
    func words() {
        let events: [Stabilization.Event] = [.lensEnabled(true, forced: false), .videoPreferred(.auto), .videoActive(.standard),
                                             .lensSupported(false), .lensEnabled(false, forced: true), .videoActive(.off),
                                             .stillAutomatic(true)]
        let lines = events.map { event in ([event.consoleName] + event.consoleFields.map { "\($0.0)=\($0.1)" }).joined(separator: " ") }
        #expect(lines == ["stabilization.lens enabled=on", "stabilization.video preferred=auto",
                          "stabilization.video active=standard", "stabilization.lens supported=false",
                          "stabilization.lens enabled=off forced=yes", "stabilization.video active=off",
                          "stabilization.still automatic=on"])
    }
}

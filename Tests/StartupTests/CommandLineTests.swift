import Testing
@testable import Startup
@testable import Supervisor

@Suite struct CommandLineTests {
    @Test func runOptions() throws {
        var expected = RunArguments()
        expected.board = "sim"
        expected.console = "/dev/ttyAMA0"
        expected.captures = "/tmp/c"
        expected.config = "/etc/t.conf"
        expected.socket = "/tmp/s.sock"
        let parsed = try parseTripodArguments(["run", "--board", "sim", "--console", "/dev/ttyAMA0", "--captures", "/tmp/c",
                                               "--config", "/etc/t.conf", "--socket", "/tmp/s.sock"])
        #expect(parsed == .run(expected))
        #expect(try parseTripodArguments(["run"]) == .run(RunArguments()))
    }

    @Test func otherSubcommands() throws {
        #expect(try parseTripodArguments([]) == .help(nil))
        #expect(try parseTripodArguments(["--help"]) == .help(nil))
        #expect(try parseTripodArguments(["help", "run"]) == .help("run"))
        #expect(try parseTripodArguments(["run", "--help"]) == .help("run"))
        #expect(try parseTripodArguments(["formats", "--json"]) == .formats(board: nil, json: true))
        #expect(try parseTripodArguments(["formats", "--board", "rpi5"]) == .formats(board: "rpi5", json: false))
        #expect(try parseTripodArguments(["ctl", "get", "exposure.iso"]) == .ctl(socket: defaultSocketPath, line: "get exposure.iso"))
        #expect(try parseTripodArguments(["ctl", "--socket", "/x", "status"]) == .ctl(socket: "/x", line: "status"))
        #expect(try parseTripodArguments(["check-config", "f.conf"]) == .checkConfig(path: "f.conf"))
        #expect(try parseTripodArguments(["version"]) == .version)
    }

    @Test(arguments: [
        (["frobnicate"], "unknown subcommand \"frobnicate\""),
        (["run", "--board"], "--board needs a value"),
        (["run", "--board", "--console", "x"], "--board needs a value"),
        (["run", "--verbose"], "unknown option \"--verbose\" for run"),
        (["formats", "extra"], "unknown option \"extra\" for formats"),
        (["ctl"], "ctl needs a console line, e.g. tripod ctl status"),
        (["check-config"], "check-config needs exactly one FILE"),
        (["help", "nothing"], "unknown subcommand \"nothing\""),
    ])
    func usageErrors(arguments: [String], message: String) {
        #expect(throws: UsageError.self) { try parseTripodArguments(arguments) }
        do { _ = try parseTripodArguments(arguments) } catch { #expect(error.message == message) }
    }

    @Test func everySubcommandHasHelpNamingItsOptions() {
        for sub in TripodHelp.subcommands {
            let text = TripodHelp.help(for: sub.name) ?? ""
            #expect(text.hasPrefix("usage: tripod \(sub.name)"))
            for (option, _) in sub.options { #expect(text.contains(option)) }
            #expect(TripodHelp.overview().contains(sub.name))
        }
    }
}

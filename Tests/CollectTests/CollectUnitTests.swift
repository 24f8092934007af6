import Foundation
import Testing
@testable import Collect
@testable import Fleet
@testable import FleetConsole
@testable import Remote
@testable import Settings
@testable import Startup

/// The collector's pieces without processes: names from the network, the layouts, the origin
/// policy's table for the collection key, the command line.
struct CollectUnitTests {
    @Test func namesFromTheNetworkCannotLeaveDIR() {
        for bad in ["", ".", "..", ".hidden", "a/b", "../x", "a\u{0}b", "a b", "é", String(repeating: "a", count: 129), "a\\b", "%2e%2e"] {
            #expect(!SafeName.isValid(bad), "\(bad)")
        }
        for good in ["r1", "cam-07", "r1-1777636805250", "TRP_000042_01.dng"] { #expect(SafeName.isValid(good)) }
        #expect(!SafeName.isValidCapturePath("2026-05-01/../../etc/passwd"))
        #expect(!SafeName.isValidCapturePath("/etc/passwd"))
        #expect(!SafeName.isValidCapturePath("a//b"))
        #expect(SafeName.isValidCapturePath("2026-05-01/TRP_000042_01.dng"))
    }

    @Test func aRigPartWithAnEscapingPathOrABadChecksumIsRefusedWhole() {
        let hash = String(repeating: "ab", count: 32)
        func part(_ path: String, sha: String = hash, bytes: Int = 10) -> [UInt8] {
            Array("""
            {"sidecar":{"path":"d/TRP_1.json","bytes":5,"sha256":"\(hash)"},"files":[{"path":"\(path)","bytes":\(bytes),"sha256":"\(sha)"}]}
            """.utf8)
        }
        #expect(RigPart.parse(part("d/TRP_1_01.dng")) != nil)
        #expect(RigPart.parse(part("d/../../x")) == nil)
        #expect(RigPart.parse(part("/etc/passwd")) == nil)
        #expect(RigPart.parse(part("d/TRP_1_01.dng", sha: "zz")) == nil)
        #expect(RigPart.parse(part("d/TRP_1_01.dng", bytes: -1)) == nil)
        // Two files of one name would land on one path.
        #expect(RigPart.parse(part("e/TRP_1.json")) == nil)
    }

    @Test func aReportNamingAnUnsafeRigDropsThatRig() throws {
        let report = try #require(ShotReport.parse(Array("""
        {"shot":"r1-1777636805250","sender":"r1","asked":["r1","../x","r2"],"answered":["r1"],"rigs":{"r1":{"offsetMicroseconds":12.5,"clock":"synchronised","files":["d/a.dng","../b"]},"../x":{}}}
        """.utf8)))
        #expect(report.asked == ["r1", "r2"])
        #expect(Set(report.rigs.keys) == ["r1"])
        #expect(report.rigs["r1"]?.files == ["d/a.dng"])
        #expect(report.instantMilliseconds == 1_777_636_805_250)
        #expect(ShotReport.parse(Array(#"{"shot":"../x","sender":"r1"}"#.utf8)) == nil)
    }

    @Test func theLayoutsPutEachFileWhereTheToolsReadIt() {
        #expect(CollectLayout.rigs.path(shot: "s", rig: "r1", name: "TRP_1_01.dng", index: 0, count: 1, isSidecar: false) == "s/r1/TRP_1_01.dng")
        #expect(CollectLayout.colmap.path(shot: "s", rig: "r1", name: "TRP_1_01.jpg", index: 0, count: 1, isSidecar: false) == "images/r1/s.jpg")
        #expect(CollectLayout.colmap.path(shot: "s", rig: "r1", name: "TRP_1_01.dng", index: 0, count: 1, isSidecar: false) == "raw/r1/s.dng")
        #expect(CollectLayout.colmap.path(shot: "s", rig: "r1", name: "TRP_1_02.jpg", index: 1, count: 3, isSidecar: false) == "images/r1/s_02.jpg")
        #expect(CollectLayout.colmap.path(shot: "s", rig: "r1", name: "TRP_1.json", index: 0, count: 1, isSidecar: true) == "sidecars/r1/s.json")
        // A rig named like the manifest would have the manifest's path as its folder in the rigs layout.
        #expect(!CollectLayout.rigs.canHold(rig: "manifest.json") && CollectLayout.rigs.canHold(rig: "r1"))
        #expect(CollectLayout.colmap.canHold(rig: "manifest.json"))
    }

    @Test func theCollectionKeyMayOnlyListAndDownload() {
        for resource in RemoteResource.allCases {
            #expect(OriginPolicy.mayRequest(resource, with: .token))
            #expect(OriginPolicy.mayRequest(resource, with: .collectionKey) == [.captureList, .download, .shotPart].contains(resource), "\(resource)")
        }
        // remote.collect names a file and is a remote.* setting: the network never changes it.
        let setting = SettingsTable.remoteCollect.any
        #expect(!OriginPolicy.mayChange(setting, from: .remote) && !OriginPolicy.mayChange(setting, from: .mqtt))
        #expect(!OriginPolicy.mayChange(SettingsTable.remoteAdvertise.any, from: .mqtt))
        #expect(OriginPolicy.mayChange(setting, from: .socket))
    }

    @Test func aStatusAdvertisingAWildcardOrAnotherSchemeIsNotAnAddress() {
        #expect(FleetDirectory.View.checkedRemote("http://127.0.0.1:8080") == "http://127.0.0.1:8080")
        #expect(FleetDirectory.View.checkedRemote("https://[fd00::1]:443") != nil)
        for bad in ["http://0.0.0.0:8080", "http://[::]:8080", "file:///etc/passwd", "http://a:0", "http://a b:80", "http://a:80/x?y", "gopher://a:70"] {
            #expect(FleetDirectory.View.checkedRemote(bad) == nil, "\(bad)")
        }
    }

    @Test func aWildcardRemoteIsAdvertisedAsTheBrokerConnectionsAddress() {
        let line = #"{"type":"reply","ok":true,"values":{"remote":"http://0.0.0.0:8080","state":"ready"}}"#
        #expect(FleetClient.advertising("192.168.1.21", in: line).contains(#""remote":"http://192.168.1.21:8080""#))
        #expect(FleetClient.advertising("[fd00::5]", in: line.replacingOccurrences(of: "0.0.0.0", with: "[::]")).contains("http://[fd00::5]:8080"))
        #expect(FleetClient.advertising(nil, in: line) == line)
        let fixed = line.replacingOccurrences(of: "0.0.0.0", with: "10.0.0.7")
        #expect(FleetClient.advertising("192.168.1.21", in: fixed) == fixed)
    }

    @Test func theCommandLineNeedsItsOptionsAndRefusesUnsafeIds() throws {
        let base = ["collect", "--broker", "mqtt://127.0.0.1:1883", "--group", "g", "--into", "/tmp/x", "--key", "/tmp/k"]
        guard case .collect(let options) = try parseTripodArguments(base + ["--layout", "colmap", "--parallel", "4"]) else {
            Issue.record("not collect"); return
        }
        #expect(options.layout == .colmap && options.parallel == 4 && options.selection == .last)
        #expect(throws: UsageError.self) { try parseTripodArguments(base + ["--shot", "../../etc"]) }
        #expect(throws: UsageError.self) { try parseTripodArguments(base + ["--parallel", "0"]) }
        #expect(throws: UsageError.self) { try parseTripodArguments(base + ["--shot", "a", "--follow"]) }
        #expect(throws: UsageError.self) { try parseTripodArguments(Array(base.dropLast(2))) }
    }

    /// The key file is read as every secret file is: a FIFO or a folder is refused at once (never
    /// waited on), so is a key others may read; a 0600 file's one line is the key.
    @Test func theCollectionKeyFileIsARegularFileOnlyItsOwnerReads() throws {
        let folder = NSTemporaryDirectory() + "tripod-key-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let key = String(repeating: "0123456789abcdef", count: 4)
        let file = folder + "/key"
        try (key + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o600)
        #expect(try CollectionKey.load(file) == key)
        chmod(file, 0o644)
        #expect(throws: RemoteError.self) { try CollectionKey.load(file) }
        let fifo = folder + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(throws: RemoteError.self) { try CollectionKey.load(fifo) }
        #expect(throws: RemoteError.self) { try CollectionKey.load(folder) }
    }

    @Test func theSimulatedBoardsSerialIsOnePerStateDirectoryAndStable() {
        let a = BodySerial.read(simulated: true, stateDirectory: "/var/lib/tripod-a", cameraIndex: 0)
        #expect(a == BodySerial.read(simulated: true, stateDirectory: "/var/lib/tripod-a/", cameraIndex: 0))
        #expect(a != BodySerial.read(simulated: true, stateDirectory: "/var/lib/tripod-b", cameraIndex: 0))
        #expect(a?.hasSuffix("-0") == true)
    }
}

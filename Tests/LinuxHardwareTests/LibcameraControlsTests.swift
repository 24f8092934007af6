import Hardware
@testable import LinuxHardware
import Testing

/// A control the firmware uses (`ControlName`), a value of libcamera's type for it, and the
/// libcamera versions that have it.
struct FirmwareControl: Sendable {
    var name: String
    var value: ControlValue
    var since = LibcameraVersion.v0_0
    var until: LibcameraVersion? = nil
    var inThisLibcamera: Bool { LibcameraVersion.running.has(since: since, until: until) }
}

let everyFirmwareControl: [FirmwareControl] = [
    FirmwareControl(name: ControlName.aeEnable, value: .bool(true)),
    FirmwareControl(name: ControlName.aeLocked, value: .bool(false), until: .v0_5),
    FirmwareControl(name: ControlName.aeState, value: .int32(2)),  // a draft control in 0.0.3's table
    FirmwareControl(name: ControlName.exposureTimeMode, value: .int32(1), since: .v0_5),
    FirmwareControl(name: ControlName.analogueGainMode, value: .int32(1), since: .v0_5),
    FirmwareControl(name: ControlName.hdrMode, value: .int32(1), since: .v0_2),
    FirmwareControl(name: ControlName.hdrChannel, value: .int32(1), since: .v0_2),
    FirmwareControl(name: ControlName.frameWallClock, value: .int64(1_764_600_000_000_000_000), since: .v0_5),
    FirmwareControl(name: ControlName.exposureTime, value: .int32(10_000)),
    FirmwareControl(name: ControlName.analogueGain, value: .float(2.5)),
    FirmwareControl(name: ControlName.digitalGain, value: .float(1.25)),
    FirmwareControl(name: ControlName.exposureValue, value: .float(-0.5)),
    FirmwareControl(name: ControlName.awbEnable, value: .bool(false)),
    FirmwareControl(name: ControlName.awbLocked, value: .bool(true)),
    FirmwareControl(name: ControlName.colourGains, value: .floatArray([1.8, 1.4])),
    FirmwareControl(name: ControlName.colourTemperature, value: .int32(5600)),
    FirmwareControl(name: ControlName.afMode, value: .int32(1)),
    FirmwareControl(name: ControlName.afTrigger, value: .int32(0)),
    FirmwareControl(name: ControlName.afState, value: .int32(2)),
    FirmwareControl(name: ControlName.lensPosition, value: .float(3.5)),
    FirmwareControl(name: ControlName.scalerCrop, value: .rectangle(PixelRect(x: 16, y: 8, width: 1920, height: 1080))),
    FirmwareControl(name: ControlName.frameDurationLimits, value: .int64Array([33_333, 100_000])),
    FirmwareControl(name: ControlName.frameDuration, value: .int64(16_666)),
    FirmwareControl(name: ControlName.sensorTimestamp, value: .int64(123_456_789_012)),
    FirmwareControl(name: ControlName.lux, value: .float(400)),
]

/// The firmware's controls this libcamera has.
let firmwareControls: [(name: String, value: ControlValue)] =
    everyFirmwareControl.filter(\.inThisLibcamera).map { ($0.name, $0.value) }

/// A libcamera major.minor, to say which controls a version has.
struct LibcameraVersion: Comparable, Sendable {
    var major: Int, minor: Int
    static let v0_0 = LibcameraVersion(major: 0, minor: 0)
    static let v0_2 = LibcameraVersion(major: 0, minor: 2)
    static let v0_5 = LibcameraVersion(major: 0, minor: 5)
    /// The libcamera the tests run with ("0.7.1" → 0.7).
    static let running: LibcameraVersion = {
        let parts = LibcameraProvider.libcameraHeaderVersion.split(separator: ".").compactMap { Int($0) }
        return LibcameraVersion(major: parts.first ?? 0, minor: parts.dropFirst().first ?? 0)
    }()
    static func < (a: Self, b: Self) -> Bool { (a.major, a.minor) < (b.major, b.minor) }
    func has(since: Self, until: Self?) -> Bool { self >= since && until.map { self < $0 } != false }
}

@Suite struct LibcameraControlsTests {
    init() { quietLibcameraLogs() }

    @Test(arguments: firmwareControls.map(\.name))
    func eachFirmwareControlRoundTripsByName(name: String) throws {
        let value = try #require(firmwareControls.first { $0.name == name }?.value)
        let readBack = try LibcameraControls.roundTripThroughGlobalTable([name: value])
        #expect(readBack == [name: value])
    }

    @Test func allFirmwareControlsTogetherReadBackEqual() throws {
        let list = ControlList(uniqueKeysWithValues: firmwareControls.map { ($0.name, $0.value) })
        let readBack = try LibcameraControls.roundTripThroughGlobalTable(list)
        #expect(readBack == list)
        #expect(readBack.count == firmwareControls.count)
    }

    @Test(arguments: everyFirmwareControl.filter { !$0.inThisLibcamera }.map(\.name))
    func aControlThisLibcameraLacksIsUnsupportedByName(name: String) throws {
        let value = try #require(everyFirmwareControl.first { $0.name == name }?.value)
        let error = #expect(throws: HardwareError.self) {
            try LibcameraControls.roundTripThroughGlobalTable([name: value])
        }
        #expect(error?.kind == .unsupported)
        #expect(error?.message.contains(name) == true)
        #expect(error?.message.contains("unsupported") == true)
    }

    @Test func theLibraryRunningIsTheOneCompiledAgainst() {
        #expect(LibcameraProvider.runsCompiledLibcamera,
                "runs \(LibcameraProvider.libcameraVersion), compiled against \(LibcameraProvider.libcameraHeaderVersion)")
    }

    @Test func unknownNameIsUnsupported() {
        let error = #expect(throws: HardwareError.self) {
            try LibcameraControls.roundTripThroughGlobalTable(["NoSuchControl": .bool(true)])
        }
        #expect(error?.kind == .unsupported)
        #expect(error?.message.contains("NoSuchControl") == true)
    }

    @Test func wrongTypeIsRejectedWithTheExpectedType() {
        let error = #expect(throws: HardwareError.self) {
            try LibcameraControls.roundTripThroughGlobalTable([ControlName.exposureTime: .float(1000)])
        }
        #expect(error?.kind == .invalidArgument)
        #expect(error?.message.contains("ExposureTime takes int32, not float") == true)
    }

    @Test func wrongArrayLengthIsRejected() {
        let error = #expect(throws: HardwareError.self) {
            try LibcameraControls.roundTripThroughGlobalTable([ControlName.colourGains: .floatArray([1.5])])
        }
        #expect(error?.kind == .invalidArgument)
        #expect(error?.message.contains("takes 2 values") == true)
    }

    @Test func arrayForScalarControlIsRejected() {
        let error = #expect(throws: HardwareError.self) {
            try LibcameraControls.roundTripThroughGlobalTable([ControlName.lensPosition: .floatArray([1, 2])])
        }
        #expect(error?.kind == .invalidArgument)
    }

    @Test func singleAfWindowRoundTripsAsRectangle() throws {
        let window = ControlValue.rectangle(PixelRect(x: 100, y: 200, width: 300, height: 400))
        #expect(try LibcameraControls.roundTripThroughGlobalTable(["AfWindows": window]) == ["AfWindows": window])
    }

    @Test func emptyListReadsBackEmpty() throws {
        #expect(try LibcameraControls.roundTripThroughGlobalTable([:]).isEmpty)
    }
}

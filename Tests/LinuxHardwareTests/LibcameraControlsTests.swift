import Hardware
@testable import LinuxHardware
import Testing

/// Every control the firmware uses (`ControlName`), with a value of libcamera's type for it.
let firmwareControls: [(name: String, value: ControlValue)] = [
    (ControlName.aeEnable, .bool(true)),
    (ControlName.aeLocked, .bool(false)),
    (ControlName.exposureTime, .int32(10_000)),
    (ControlName.analogueGain, .float(2.5)),
    (ControlName.digitalGain, .float(1.25)),
    (ControlName.exposureValue, .float(-0.5)),
    (ControlName.awbEnable, .bool(false)),
    (ControlName.awbLocked, .bool(true)),
    (ControlName.colourGains, .floatArray([1.8, 1.4])),
    (ControlName.colourTemperature, .int32(5600)),
    (ControlName.afMode, .int32(1)),
    (ControlName.afTrigger, .int32(0)),
    (ControlName.afState, .int32(2)),
    (ControlName.lensPosition, .float(3.5)),
    (ControlName.scalerCrop, .rectangle(PixelRect(x: 16, y: 8, width: 1920, height: 1080))),
    (ControlName.frameDurationLimits, .int64Array([33_333, 100_000])),
    (ControlName.frameDuration, .int64(16_666)),
    (ControlName.sensorTimestamp, .int64(123_456_789_012)),
    (ControlName.lux, .float(400)),
]

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

    @Test func hdrModeIsUnsupportedInThisLibcamera() {
        let error = #expect(throws: HardwareError.self) {
            try LibcameraControls.roundTripThroughGlobalTable([ControlName.hdrMode: .int32(1)])
        }
        #expect(error?.kind == .unsupported)
        #expect(error?.message.contains("HdrMode") == true)
        #expect(error?.message.contains("unsupported") == true)
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

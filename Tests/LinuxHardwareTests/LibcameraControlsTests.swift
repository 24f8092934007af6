import CCameraShim
import Hardware
@testable import LinuxHardware
import Testing

/// The controls the firmware uses (`ControlName`), each with a value of libcamera's type for it.
/// Whether this libcamera has one is asked of libcamera itself (its global control table), never
/// decided from the version.
let everyFirmwareControl: [(name: String, value: ControlValue)] = [
    (ControlName.aeEnable, .bool(true)),
    (ControlName.aeLocked, .bool(false)),
    (ControlName.aeState, .int32(2)),
    (ControlName.exposureTimeMode, .int32(1)),
    (ControlName.analogueGainMode, .int32(1)),
    (ControlName.hdrMode, .int32(1)),
    (ControlName.hdrChannel, .int32(1)),
    (ControlName.frameWallClock, .int64(1_764_600_000_000_000_000)),
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

/// True when libcamera's global control table (`controls::controls`) has a control of this name.
func libcameraHas(_ name: String) -> Bool { LibcameraControls.globalControl(named: name) != nil }

@Suite struct LibcameraControlsTests {
    init() { quietLibcameraLogs() }

    /// A control this libcamera has round-trips by name; one it lacks is refused as unsupported,
    /// naming it.
    @Test(arguments: everyFirmwareControl.map(\.name))
    func eachFirmwareControlRoundTripsOrIsUnsupported(name: String) throws {
        let value = try #require(everyFirmwareControl.first { $0.name == name }?.value)
        guard libcameraHas(name) else {
            let error = #expect(throws: HardwareError.self) {
                try LibcameraControls.roundTripThroughGlobalTable([name: value])
            }
            #expect(error?.kind == .unsupported)
            #expect(error?.message.contains("'\(name)'") == true)
            #expect(error?.message.contains("unsupported") == true)
            return
        }
        #expect(try LibcameraControls.roundTripThroughGlobalTable([name: value]) == [name: value])
    }

    @Test func allFirmwareControlsThisLibcameraHasReadBackTogether() throws {
        let present = everyFirmwareControl.filter { libcameraHas($0.name) }
        let list = ControlList(uniqueKeysWithValues: present.map { ($0.name, $0.value) })
        let readBack = try LibcameraControls.roundTripThroughGlobalTable(list)
        #expect(readBack == list)
        #expect(readBack.count == present.count)
    }

    /// Video HDR's HdrMode and HdrChannel (libcamera 0.2 and later, Raspberry Pi's fork included) are
    /// int32 enum controls; Debian's 0.0.3 has neither, and video HDR there is the sensor's own.
    @Test func hdrModeAndHdrChannelExistFromLibcamera0_2() throws {
        let version = LibcameraProvider.libcameraHeaderVersion.split(separator: ".").compactMap { Int($0) }
        let hasHDRControls = version.count == 3 && (version[0], version[1]) >= (0, 2)
        for name in [ControlName.hdrMode, ControlName.hdrChannel] {
            #expect(libcameraHas(name) == hasHDRControls, "\(name) on libcamera \(LibcameraProvider.libcameraHeaderVersion)")
            if hasHDRControls { #expect(LibcameraControls.globalControl(named: name)?.type == TC_VALUE_INT32) }
        }
        guard hasHDRControls else { return }
        for mode in HdrModeValue.allCases {
            let request: ControlList = [ControlName.hdrMode: .int32(mode.rawValue)]
            #expect(try LibcameraControls.roundTripThroughGlobalTable(request) == request, "\(mode)")
        }
    }

    /// The frame's AE state comes from AeState or, where there is none, AeLocked: one must exist.
    @Test func aeStateOrAeLockedExists() {
        #expect(libcameraHas(ControlName.aeState) || libcameraHas(ControlName.aeLocked))
    }

    @Test func theGlobalLookupGivesTypeAndShape() throws {
        #expect(LibcameraControls.globalControl(named: "NoSuchControl") == nil)
        let exposure = try #require(LibcameraControls.globalControl(named: ControlName.exposureTime))
        #expect(exposure.type == TC_VALUE_INT32)
        #expect(!exposure.isArray)
        let gains = try #require(LibcameraControls.globalControl(named: ControlName.colourGains))
        #expect(gains.type == TC_VALUE_FLOAT)
        if gains.arrayShapeKnown {
            #expect(gains.isArray && gains.arrayLength == 2)
        } else {
            // Before 0.4 the ControlId has no array-ness: the lookup says nothing about it.
            #expect(!gains.isArray && gains.arrayLength == 0)
        }
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

    /// Where the ControlId has array-ness (0.4+), a wrong length is refused; before, the value's own
    /// shape is taken (only the element type is checked) and the one gain goes through as it is.
    @Test func arrayLengthIsCheckedWhereTheControlIdHasIt() throws {
        try expectShapeChecked([ControlName.colourGains: .floatArray([1.5])], refusal: "takes 2 values")
    }

    /// An array for a scalar control: refused where the ControlId says it is scalar (0.4+), passed
    /// through with its own shape before.
    @Test func arrayForScalarControlIsRejectedWhereTheControlIdSaysScalar() throws {
        try expectShapeChecked([ControlName.lensPosition: .floatArray([1, 2])], refusal: "takes a single float")
    }

    /// `wrong` (one control, a value of the wrong shape) is refused as invalid, naming `refusal`, where
    /// its ControlId has array-ness; before, it goes through the global table as it is.
    private func expectShapeChecked(_ wrong: ControlList, refusal: String) throws {
        let name = try #require(wrong.keys.first)
        let control = try #require(LibcameraControls.globalControl(named: name))
        guard control.arrayShapeKnown else {
            #expect(try LibcameraControls.roundTripThroughGlobalTable(wrong) == wrong)
            return
        }
        let error = #expect(throws: HardwareError.self) { try LibcameraControls.roundTripThroughGlobalTable(wrong) }
        #expect(error?.kind == .invalidArgument)
        #expect(error?.message.contains(refusal) == true, "\(String(describing: error))")
    }

    @Test func theElementTypeIsCheckedOnEveryVersion() {
        let error = #expect(throws: HardwareError.self) {
            try LibcameraControls.roundTripThroughGlobalTable([ControlName.colourGains: .int32Array([1, 2])])
        }
        #expect(error?.kind == .invalidArgument)
        #expect(error?.message.contains("ColourGains takes float, not int32") == true)
    }

    @Test func singleAfWindowRoundTripsAsRectangle() throws {
        let window = ControlValue.rectangle(PixelRect(x: 100, y: 200, width: 300, height: 400))
        #expect(try LibcameraControls.roundTripThroughGlobalTable(["AfWindows": window]) == ["AfWindows": window])
    }

    @Test func emptyListReadsBackEmpty() throws {
        #expect(try LibcameraControls.roundTripThroughGlobalTable([:]).isEmpty)
    }
}

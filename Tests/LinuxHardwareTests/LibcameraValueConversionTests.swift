import CCameraShim
import Hardware
@testable import LinuxHardware
import Testing

/// Conversion of shim values that libcamera 0.0.3's controls never produce in a round trip.
@Suite struct LibcameraValueConversionTests {
    @Test func bytesWidenToInt32() {
        let bytes: [UInt8] = [1, 200, 255]
        let value = bytes.withUnsafeBytes { raw in
            LibcameraControls.controlValue(tc_value(type: TC_VALUE_BYTE, is_array: true, count: 3, data: raw.baseAddress))
        }
        #expect(value == .int32Array([1, 200, 255]))
    }

    @Test func unsignedValuesWidenToTheNextSignedType() {
        let halfWords: [UInt16] = [65_535, 2]
        let halfConverted = halfWords.withUnsafeBytes { raw in
            LibcameraControls.controlValue(tc_value(type: TC_VALUE_UINT16, is_array: true, count: 2, data: raw.baseAddress))
        }
        #expect(halfConverted == .int32Array([65_535, 2]))
        let word: UInt32 = 4_000_000_000
        let wordConverted = withUnsafeBytes(of: word) { raw in
            LibcameraControls.controlValue(tc_value(type: TC_VALUE_UINT32, is_array: false, count: 1, data: raw.baseAddress))
        }
        #expect(wordConverted == .int64(4_000_000_000))
    }

    @Test func pointsHaveNoEquivalent() {
        let point = tc_point(x: 3, y: 4)
        let converted = withUnsafeBytes(of: point) { raw in
            LibcameraControls.controlValue(tc_value(type: TC_VALUE_POINT, is_array: false, count: 1, data: raw.baseAddress))
        }
        #expect(converted == nil)
    }

    @Test func severalRectanglesHaveNoEquivalent() {
        let rects = [tc_rect(x: 0, y: 0, width: 1, height: 1), tc_rect(x: 2, y: 2, width: 3, height: 3)]
        let value = rects.withUnsafeBytes { raw in
            LibcameraControls.controlValue(tc_value(type: TC_VALUE_RECTANGLE, is_array: true, count: 2, data: raw.baseAddress))
        }
        #expect(value == nil)
    }

    @Test func sizeAndStringConvert() {
        let size = [tc_size(width: 4608, height: 2592)]
        let sizeValue = size.withUnsafeBytes { raw in
            LibcameraControls.controlValue(tc_value(type: TC_VALUE_SIZE, is_array: false, count: 1, data: raw.baseAddress))
        }
        #expect(sizeValue == .size(PixelSize(width: 4608, height: 2592)))
        let text = Array("imx708".utf8)
        let stringValue = text.withUnsafeBytes { raw in
            LibcameraControls.controlValue(tc_value(type: TC_VALUE_STRING, is_array: true, count: text.count, data: raw.baseAddress))
        }
        #expect(stringValue == .string("imx708"))
    }

    @Test func noneHasNoEquivalent() {
        #expect(LibcameraControls.controlValue(tc_value(type: TC_VALUE_NONE, is_array: false, count: 0, data: nil)) == nil)
    }

    @Test func shimStatusesMapToHardwareErrorKinds() {
        #expect(hardwareErrorKind(TC_ERR_UNSUPPORTED) == .unsupported)
        #expect(hardwareErrorKind(TC_ERR_NOT_FOUND) == .notFound)
        #expect(hardwareErrorKind(TC_ERR_BUSY) == .busy)
        #expect(hardwareErrorKind(TC_ERR_DISCONNECTED) == .disconnected)
        #expect(hardwareErrorKind(TC_ERR_STATE) == .other)
    }
}

import Foundation
import Hardware
import Testing
@testable import Media
@testable import SimulatedHardware

/// The raw layouts a Pi hands back, decoded from bytes worked out by hand from their definitions
/// (the kernel's pixfmt-srggb8-pisp-comp.rst, MIPI CSI-2 RAW10/RAW12), not from Tripod's encoders.
@Suite struct RawUnpackingTests {
    /// Four PiSP words, one per quantisation mode, with the fields written out; offset 2048 added.
    /// Mode 1: q = (50, 100, 110, 173): 9-bit 100, 7-bit 110−100+64 = 74, q0 50−(100−64) = 14, q3 173−(110−64) = 127.
    static let mode1: [UInt8] = [145, 81, 58, 254]  // 0xFE3A5191
    static let mode1Values: [UInt16] = [50 * 64 + 2048, 100 * 64 + 2048, 110 * 64 + 2048, 173 * 64 + 2048]
    /// Mode 0, q2 < q1 and levels past 320: q = (341, 400, 350, 286): 9-bit MIN 350, 7-bit 350−400+64 = 14,
    /// q0 341−336 = 5, q3 286−286 = 0; values 5120+21·32, 5120+80·32, 5120+30·32, 286·16.
    static let mode0: [UInt8] = [120, 117, 20, 0]  // 0x00147578
    static let mode0Values: [UInt16] = [5792 + 2048, 7680 + 2048, 6080 + 2048, 4576 + 2048]
    /// Mode 2, both inner levels in 384…511: q = (484, 500, 400, 463): 9-bit q1 500, 7-bit 400 & 127 = 16,
    /// q0 484−384 = 100 (q1 ≥ 448), q3 463−(400−64) = 127; 500·128 + 2048 saturates.
    static let mode2: [UInt8] = [210, 135, 144, 255]  // 0xFF9087D2
    static let mode2Values: [UInt16] = [484 * 128 + 2048, 65535, 400 * 128 + 2048, 463 * 128 + 2048]
    /// Mode 3: q = (175, 10, 95, 0): pairs 2816·10 + 16·10 + 15 = 28335 and 2816·5 + 0 + 15 = 14095;
    /// level 175 is FSD (saturates), 95 is 94·256 + 512.
    static let mode3: [UInt8] = [191, 186, 31, 110]  // 0x6E1FBABF
    static let mode3Values: [UInt16] = [65535, 10 * 256 + 2048, 24576 + 2048, 2048]

    /// A block's 8 pixels: even phase from the first word, odd from the second.
    static func interleaved(_ even: [UInt16], _ odd: [UInt16]) -> [UInt16] { (0..<4).flatMap { [even[$0], odd[$0]] } }

    /// Two rows 13 pixels wide (two blocks, the second cut short), rows 32 bytes apart.
    static func compressedFrame() -> (frame: FrameBuffer, expected16: [UInt16]) {
        let a = mode1 + mode3, b = mode0 + mode2
        let blockA = interleaved(mode1Values, mode3Values), blockB = interleaved(mode0Values, mode2Values)
        var bytes = [UInt8](repeating: 0xEE, count: 64)  // padding must be ignored
        bytes.replaceSubrange(0..<16, with: a + b)
        bytes.replaceSubrange(32..<48, with: b + a)
        let expected = Array((blockA + blockB).prefix(13)) + Array((blockB + blockA).prefix(13))
        return (FrameBuffer(pixelFormat: PixelFormat("RGGB_PISP_COMP1"), size: PixelSize(width: 13, height: 2), stride: 32, bytes: bytes),
                expected)
    }

    @Test func pispComp1DecodesHandWorkedWordsOfEveryQuantisationMode() throws {
        let (frame, expected) = Self.compressedFrame()
        var decoded = [UInt16](repeating: 0, count: 26)
        frame.withUnsafeBytes { bytes in
            decoded.withUnsafeMutableBufferPointer { PiSPCompression.decode(bytes, width: 13, rows: 0..<2, stride: 32, into: $0) }
        }
        #expect(decoded == expected)
        // Through the DNG path: Mode 1's 12 significant bits (65535 becomes 4095).
        let unpacked = try RawUnpacking.unpack(frame, modeBitDepth: nil)
        #expect(unpacked.frame.pixelFormat == PixelFormat("SRGGB12") && unpacked.note == nil)
        #expect(samples(of: unpacked.frame) == expected.map { $0 >> 4 })
        // A 10-bit mode: these levels are not all multiples of 4 at 12 bits, so 12 bits stay, and the note says why.
        let tenBit = try RawUnpacking.unpack(frame, modeBitDepth: 10)
        #expect(tenBit.frame.pixelFormat == PixelFormat("SRGGB12"))
        #expect(tenBit.note?.contains("the sensor mode is 10-bit") == true, "\(String(describing: tenBit.note))")
    }

    @Test func csi2PackedRaw10AndRaw12UnpackFromHandWorkedBytes() throws {
        // RAW10: high bytes 0x12 0x34 0x56 0x78, low bits 00, 01, 10, 11 from bit 0 up; a 5th pixel
        // in a second group; rows padded to 16 bytes.
        var raw10 = [UInt8](repeating: 0xAA, count: 32)
        raw10.replaceSubrange(0..<10, with: [0x12, 0x34, 0x56, 0x78, 0b11_10_01_00, 0xFF, 0, 0, 0, 0b0000_0011])
        raw10.replaceSubrange(16..<26, with: [0, 0, 0, 0, 0, 0x01, 0, 0, 0, 0])
        let ten = try RawUnpacking.unpack(FrameBuffer(pixelFormat: PixelFormat("SGBRG10_CSI2P"), size: PixelSize(width: 5, height: 2),
                                                      stride: 16, bytes: raw10), modeBitDepth: 10)
        #expect(ten.frame.pixelFormat == PixelFormat("SGBRG10"))
        #expect(samples(of: ten.frame) == [0x12 << 2, 0x34 << 2 | 1, 0x56 << 2 | 2, 0x78 << 2 | 3, 1023, 0, 0, 0, 0, 4])
        // RAW12: 0xAB 0xCD then low nibbles 1 (pixel 0) and 2 (pixel 1); a 3rd pixel in a second group.
        let raw12: [UInt8] = [0xAB, 0xCD, 0x21, 0xFF, 0x00, 0x0F, 0, 0]
        let twelve = try RawUnpacking.unpack(FrameBuffer(pixelFormat: PixelFormat("SBGGR12_CSI2P"), size: PixelSize(width: 3, height: 1),
                                                         stride: 8, bytes: raw12), modeBitDepth: 12)
        #expect(twelve.frame.pixelFormat == PixelFormat("SBGGR12"))
        #expect(samples(of: twelve.frame) == [0xAB << 4 | 1, 0xCD << 4 | 2, 4095])
    }

    @Test(arguments: [10, 12, 14])
    func msbAligned16BitSamplesShiftDownToTheModesDepth(bits: Int) throws {
        let frame = makePatternFrame(width: 40, height: 6, bits: bits, pattern: .noisy)
        let left = FrameBuffer(pixelFormat: PixelFormat("SRGGB16"), size: frame.size, stride: frame.stride + 16,
                               bytes: Self.restride(samples(of: frame).map { $0 << (16 - bits) }, width: 40, stride: frame.stride + 16))
        let unpacked = try RawUnpacking.unpack(left, modeBitDepth: bits)
        #expect(unpacked.frame.pixelFormat == PixelFormat("SRGGB\(bits)") && unpacked.note == nil)
        #expect(samples(of: unpacked.frame) == samples(of: frame))
        #expect(try BayerLayout(unpacked.frame.pixelFormat).whiteLevel == (1 << bits) - 1)
    }

    @Test func sixteenBitSamplesWithLowBitsSetStaySixteenBitAndSaySo() throws {
        var values = samples(of: makePatternFrame(width: 16, height: 4, bits: 10, pattern: .noisy)).map { $0 << 6 }
        values[21] |= 0x0004
        let frame = FrameBuffer(pixelFormat: PixelFormat("SBGGR16"), size: PixelSize(width: 16, height: 4), stride: 32,
                                bytes: Self.restride(values, width: 16, stride: 32))
        let kept = try RawUnpacking.unpack(frame, modeBitDepth: 10)
        #expect(kept.frame.pixelFormat == PixelFormat("SBGGR16") && samples(of: kept.frame) == values)
        #expect(kept.note?.contains("at (5, 1)") == true, "\(String(describing: kept.note))")
        // A true 16-bit mode, or one of unknown depth, is written as delivered.
        #expect(try RawUnpacking.unpack(frame, modeBitDepth: 16).passedThrough)
        #expect(try RawUnpacking.unpack(frame, modeBitDepth: nil).note?.contains("unknown") == true)
    }

    @Test(arguments: ["SRGGB14_CSI2P", "RGGB_PISP_COMP2", "MONO_PISP_COMP1", "SRGGB10_IPU3", "YUYV", "R10_CSI2P"])
    func unknownRawLayoutsAreRefusedInWords(_ name: String) throws {
        let frame = FrameBuffer(pixelFormat: PixelFormat(name), size: PixelSize(width: 16, height: 2), stride: 32, bytes: [UInt8](repeating: 0, count: 64))
        do {
            _ = try RawUnpacking.unpack(frame, modeBitDepth: 10)
            Issue.record("\(name) was accepted")
        } catch let error as MediaError {
            #expect(error.kind == .notYet && error.message.contains(name), "\(error.message)")
        }
    }

    @Test func aPackedFrameShorterThanItsRowsIsRefused() throws {
        for (name, stride) in [("SRGGB10_CSI2P", 8), ("SRGGB12_CSI2P", 20), ("RGGB_PISP_COMP1", 8)] {
            let frame = FrameBuffer(pixelFormat: PixelFormat(name), size: PixelSize(width: 16, height: 2), stride: stride,
                                    bytes: [UInt8](repeating: 0, count: stride * 2))
            #expect(throws: MediaError.self, "\(name)") { try RawUnpacking.unpack(frame, modeBitDepth: 10) }
        }
    }

    /// The simulator's compressor against the decoder: every value within half its mode's step
    /// ("rounding to the nearest level"), and the test values reach every mode.
    @Test func theSimulatedCompressorRoundTripsWithinEachModesStep() throws {
        var state: UInt32 = 99
        var modes = Set<Int>()
        for round in 0..<4000 {
            var v = SIMD4<Int>()
            let spread = [8, 300, 2000, 65535][round % 4]
            state = state &* 1_664_525 &+ 1_013_904_223
            let centre = Int(state >> 16)
            for k in 0..<4 {
                state = state &* 1_664_525 &+ 1_013_904_223
                v[k] = min(max(centre + Int(state >> 16) % spread - spread / 2, 0), 65535)
            }
            let word = SimulatedPiSPCompressor.word(v)
            let mode = Int(word & 3)
            modes.insert(mode)
            let decoded = PiSPCompression.decodeWord(word)
            for k in 0..<4 {
                #expect(abs(decoded[k] - v[k]) <= PiSPCompression.largestError16(mode: mode), "mode \(mode): \(v) → \(decoded)")
            }
        }
        #expect(modes == [0, 1, 2, 3])
    }

    static func restride(_ values: [UInt16], width: Int, stride: Int) -> [UInt8] {
        let height = values.count / width
        var bytes = [UInt8](repeating: 0, count: stride * height)
        for y in 0..<height {
            for x in 0..<width {
                bytes[y * stride + 2 * x] = UInt8(values[y * width + x] & 0xFF)
                bytes[y * stride + 2 * x + 1] = UInt8(values[y * width + x] >> 8)
            }
        }
        return bytes
    }
}

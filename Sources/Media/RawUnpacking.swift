import Dispatch
import Foundation
import Hardware

/// Turns whatever a raw stream delivered into the one layout the DNG writer takes: unpacked
/// `S<order><bits>` samples, 16-bit little-endian with the value in the low `bits` bits, at the
/// sensor mode's bit depth where the data allows.
///
/// What it reads (libcamera format names):
/// - `SRGGB10` … `SRGGB16` (any order), unpacked with the value in the low bits: passed through.
/// - `S<order>16` from a sensor mode of fewer bits (a Pi 5's PiSP front end delivers every mode
///   as 16-bit samples, MSB-aligned): shifted down to the mode's depth when every sample's bits
///   below it are zero (or the sample is full scale, 65535); otherwise kept at 16 bits, and the
///   result's `note` says so.
/// - `S<order>10_CSI2P` and `S<order>12_CSI2P` (MIPI CSI-2 RAW10 and RAW12, as a Pi 4's Unicam
///   delivers them): unpacked. RAW10 packs 4 pixels in 5 bytes, the high 8 bits of each in bytes
///   0–3 and their low 2 bits in byte 4 (pixel 0 in bits 1:0); RAW12 packs 2 pixels in 3 bytes,
///   the low 4 bits in byte 2 (pixel 0 in bits 3:0).
/// - `<order>_PISP_COMP1`: decompressed (`PiSPCompression`) to 12 bits, and to the mode's depth
///   below that when the samples allow.
/// Anything else is refused with `MediaError(.notYet)` naming the format.
public enum RawUnpacking {
    /// The frame as the DNG writer takes it, and what was done to it.
    public struct Result: Sendable {
        /// Unpacked `S<order><bits>` samples (the delivered buffer itself when it already was).
        public var frame: FrameBuffer
        /// What the raw stream delivered.
        public var delivered: PixelFormat
        /// Why the samples kept more bits than the sensor mode has, when they did.
        public var note: String?
        /// True when `frame` is the delivered buffer unchanged.
        public var passedThrough: Bool { frame.pixelFormat == delivered }
    }

    /// The unpacked frame for `frame`; `modeBitDepth` is the sensor mode's bit depth (from its
    /// libcamera format name, `CameraFormat.rawBitDepth`), nil when unknown.
    public static func unpack(_ frame: FrameBuffer, modeBitDepth: Int?) throws -> Result {
        let name = frame.pixelFormat.rawValue
        let width = frame.size.width, height = frame.size.height
        guard width > 0, height > 0 else {
            throw MediaError(.invalidFrame, "raw frame \(frame.size) \(name) has no pixels")
        }
        if let mode = modeBitDepth, !(8...16).contains(mode) {
            throw MediaError(.invalidFrame, "raw format \(name): sensor mode bit depth \(mode) is not 8…16")
        }
        if name.contains("_PISP_COMP") { return try decompressed(frame, modeBitDepth: modeBitDepth) }
        guard frame.pixelFormat.isBayer, name.count >= 6 else {
            throw MediaError(.notYet, "not yet: raw format \(name) (Tripod reads unpacked S<order><bits>, "
                + "<order>10/12_CSI2P and <order>_PISP_COMP1 Bayer raw)")
        }
        let order = String(name.dropFirst().prefix(4))
        let suffix = name.dropFirst(5)
        if suffix.hasSuffix("_CSI2P"), let bits = Int(suffix.dropLast(6)) {
            guard bits == 10 || bits == 12 else {
                throw MediaError(.notYet, "not yet: raw format \(name) (CSI-2 packed 10- and 12-bit are unpacked; \(bits)-bit is not)")
            }
            return Result(frame: try unpackCSI2(frame, order: order, bits: bits), delivered: frame.pixelFormat)
        }
        guard let bits = Int(suffix), [8, 10, 12, 14, 16].contains(bits) else {
            throw MediaError(.notYet, "not yet: raw format \(name) (not an unpacked, CSI-2 packed or PiSP-compressed Bayer format)")
        }
        guard bits == 16, let mode = modeBitDepth, mode < 16 else {
            return Result(frame: frame, delivered: frame.pixelFormat,
                          note: bits == 16 && modeBitDepth == nil ? "16-bit samples kept: the sensor mode's bit depth is unknown" : nil)
        }
        return try reduced(frame, order: order, from: 16, to: mode, delivered: frame.pixelFormat)
    }

    /// A `<order>_PISP_COMP1` frame decoded to 12 bits, and to the mode's depth below that when
    /// the samples allow. COMP2 and the monochrome variant are refused in words.
    private static func decompressed(_ frame: FrameBuffer, modeBitDepth: Int?) throws -> Result {
        let name = frame.pixelFormat.rawValue
        let parts = name.split(separator: "_")
        guard parts.count == 3, parts[1] == "PISP", parts[2] == "COMP1" else {
            throw MediaError(.notYet, "not yet: raw format \(name): the kernel's documentation describes Mode 1 (COMP1) in full, "
                + "not the companding of the other PiSP compression modes")
        }
        let order = String(parts[0])
        guard ["RGGB", "GRBG", "GBRG", "BGGR"].contains(order) else {
            throw MediaError(.notYet, "not yet: raw format \(name): a DNG without a colour filter array "
                + "(\(order.lowercased()) sensor) is not written yet")
        }
        let width = frame.size.width, height = frame.size.height
        try checkSize(frame, rowBytes: PiSPCompression.rowBytes(width: width))
        let decoded = makeFrame(order: order, bits: 16, size: frame.size) { out in
            frame.withUnsafeBytes { bytes in
                inBands(rows: height) { rows in
                    PiSPCompression.decode(bytes, width: width, rows: rows, stride: frame.stride, into: out)
                }
            }
        }
        // Mode 1 keeps 12 significant bits: the decoded values are multiples of 16 (65535 when
        // saturated). Straight to a shallower mode's depth when the samples allow, else 12 bits.
        let target = min(modeBitDepth ?? 12, 12)
        let shifted = try shiftedDown(decoded, order: order, from: 16, to: target)
        guard let offending = shifted.offending else { return Result(frame: shifted.frame, delivered: frame.pixelFormat) }
        guard target < 12 else {  // cannot happen with Mode 1's levels and an offset of 2048
            throw MediaError(.invalidFrame, "raw format \(name): decompressed sample \(offending.value) at (\(offending.x), "
                + "\(offending.y)) is not a 12-bit level")
        }
        let twelve = try shiftedDown(decoded, order: order, from: 16, to: 12)
        return Result(frame: twelve.frame, delivered: frame.pixelFormat,
                      note: keptNote(bits: 12, mode: target, value: offending.value >> 4, x: offending.x, y: offending.y))
    }

    /// Samples of `from` bits shifted down to `to` bits when every sample's dropped bits are zero
    /// (or it is full scale, which stays full scale); else `frame` as it is, with a note.
    private static func reduced(_ frame: FrameBuffer, order: String, from: Int, to: Int, delivered: PixelFormat) throws -> Result {
        let shifted = try shiftedDown(frame, order: order, from: from, to: to)
        guard let offending = shifted.offending else { return Result(frame: shifted.frame, delivered: delivered) }
        return Result(frame: frame, delivered: delivered,
                      note: keptNote(bits: from, mode: to, value: offending.value, x: offending.x, y: offending.y))
    }

    /// Why samples kept `bits` bits rather than the mode's: the first sample with lower bits set.
    private static func keptNote(bits: Int, mode: Int, value: UInt16, x: Int, y: Int) -> String {
        "\(bits)-bit samples kept (white level \((1 << bits) - 1)): the sensor mode is \(mode)-bit, but sample "
            + "\(value) at (\(x), \(y)) has bits set below its top \(mode)"
    }

    /// `frame`'s samples shifted down from `from` to `to` bits (full scale to full scale), and the
    /// first sample in row order whose dropped bits are not all zero (then the shifted frame is
    /// incomplete and must not be used).
    private static func shiftedDown(_ frame: FrameBuffer, order: String, from: Int, to: Int) throws
        -> (frame: FrameBuffer, offending: (x: Int, y: Int, value: UInt16)?) {
        let width = frame.size.width, height = frame.size.height
        try checkSize(frame, rowBytes: width * 2)
        let shift = UInt16(from - to), mask = UInt16((1 << (from - to)) - 1), full = UInt16((1 << from) - 1)
        // The first sample (in row order) with bits set below the top `to`, if any.
        let offending = LockedValue<(x: Int, y: Int, value: UInt16)?>(nil)
        let shifted = makeFrame(order: order, bits: to, size: frame.size) { out in
            frame.withUnsafeBytes { bytes in
                inBands(rows: height) { rows in
                    for y in rows {
                        let row = y * frame.stride
                        var dropped: UInt16 = 0
                        for x in 0..<width {
                            let v = UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: row + x * 2, as: UInt16.self))
                            dropped |= v == full ? 0 : v & mask
                            out[y * width + x] = v == full ? UInt16((1 << to) - 1) : v >> shift
                        }
                        guard dropped != 0 else { continue }
                        for x in 0..<width {
                            let v = UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: row + x * 2, as: UInt16.self))
                            guard v != full, v & mask != 0 else { continue }
                            offending.withLock { first in
                                if let earlier = first, earlier.y < y { return }
                                first = (x, y, v)
                            }
                            return  // this band's first; later rows cannot come before it
                        }
                    }
                }
            }
        }
        return (shifted, offending.current)
    }

    /// MIPI CSI-2 RAW10 / RAW12 rows to 16-bit samples.
    private static func unpackCSI2(_ frame: FrameBuffer, order: String, bits: Int) throws -> FrameBuffer {
        let width = frame.size.width, height = frame.size.height
        let rowBytes = bits == 10 ? (width + 3) / 4 * 5 : (width + 1) / 2 * 3
        try checkSize(frame, rowBytes: rowBytes)
        return makeFrame(order: order, bits: bits, size: frame.size) { out in
            frame.withUnsafeBytes { bytes in
                inBands(rows: height) { rows in for y in rows {
                    let row = y * frame.stride, line = y * width
                    if bits == 10 {  // 4 pixels in 5 bytes
                        var x = 0
                        while x < width {
                            let group = row + x / 4 * 5, low = Int(bytes[group + 4])
                            for k in 0..<min(4, width - x) {
                                out[line + x + k] = UInt16(Int(bytes[group + k]) << 2 | low >> (2 * k) & 3)
                            }
                            x += 4
                        }
                    } else {  // 2 pixels in 3 bytes
                        var x = 0
                        while x < width {
                            let group = row + x / 2 * 3, low = Int(bytes[group + 2])
                            out[line + x] = UInt16(Int(bytes[group]) << 4 | low & 15)
                            if x + 1 < width { out[line + x + 1] = UInt16(Int(bytes[group + 1]) << 4 | low >> 4) }
                            x += 2
                        }
                    }
                } }
            }
        }
    }

    /// Throws unless `frame` holds `height` rows of `rowBytes` at its stride.
    private static func checkSize(_ frame: FrameBuffer, rowBytes: Int) throws {
        let height = frame.size.height
        guard frame.stride >= rowBytes, frame.byteCount >= frame.stride * (height - 1) + rowBytes else {
            throw MediaError(.invalidFrame, "raw frame \(frame.size) \(frame.pixelFormat): \(frame.byteCount) bytes with stride "
                + "\(frame.stride) is too small (rows of \(rowBytes) bytes)")
        }
    }

    /// A buffer of unpacked `S<order><bits>` samples that `fill` writes (as native UInt16, stored
    /// little-endian: every platform Tripod runs on is little-endian); 8-bit samples in one byte each.
    private static func makeFrame(order: String, bits: Int, size: PixelSize,
                                  fill: (UnsafeMutableBufferPointer<UInt16>) -> Void) -> FrameBuffer {
        let format = PixelFormat("S\(order)\(bits)")
        guard bits > 8 else {
            var samples = [UInt16](repeating: 0, count: size.area)
            samples.withUnsafeMutableBufferPointer { fill($0) }
            return FrameBuffer(pixelFormat: format, size: size, stride: size.width, bytes: samples.map { UInt8(truncatingIfNeeded: $0) })
        }
        var bytes = [UInt8](repeating: 0, count: size.area * 2)
        bytes.withUnsafeMutableBytes { fill($0.bindMemory(to: UInt16.self)) }
        return FrameBuffer(pixelFormat: format, size: size, stride: size.width * 2, bytes: bytes)
    }

    /// Runs `body` on bands of rows on every core (`DispatchQueue.concurrentPerform`, two bands a
    /// core); each band writes only its own rows.
    private static func inBands(rows: Int, _ body: (Range<Int>) -> Void) {
        let bands = min(rows, max(1, 2 * ProcessInfo.processInfo.activeProcessorCount))
        guard bands > 1 else { body(0..<rows); return }
        withoutActuallyEscaping(body) { body in
            let work = UncheckedSendable(body)
            DispatchQueue.concurrentPerform(iterations: bands) { band in
                work.value(rows * band / bands ..< rows * (band + 1) / bands)
            }
        }
    }
}

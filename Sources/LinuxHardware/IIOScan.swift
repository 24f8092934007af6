import Hardware

/// One channel's format in an IIO buffer, from `scan_elements/<channel>_type`, e.g. "le:s16/16>>0"
/// (endianness, sign, real bits / storage bits, right shift; an optional "X<repeat>" is rejected).
public struct IIOScanType: Hashable, Sendable {
    public var littleEndian: Bool
    public var signed: Bool
    public var realBits: Int
    public var storageBits: Int
    public var shift: Int

    public init(parsing text: String) throws {
        let t = text.trimmingCharacters(in: .whitespacesAndNewlines)
        func bad() -> HardwareError { HardwareError(.invalidArgument, "IIO scan type \"\(t)\": expected e.g. le:s16/16>>0") }
        let parts = t.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2, parts[0] == "le" || parts[0] == "be", let signChar = parts[1].first,
              signChar == "s" || signChar == "u" else { throw bad() }
        let rest = parts[1].dropFirst()
        guard !rest.contains("X") else {
            throw HardwareError(.unsupported, "IIO scan type \"\(t)\": repeated elements not yet supported")
        }
        let bitsAndShift = rest.components(separatedBy: ">>")
        let bits = bitsAndShift[0].split(separator: "/").compactMap { Int($0) }
        guard bits.count == 2, bitsAndShift.count == 2, let shift = Int(bitsAndShift[1]),
              [8, 16, 32, 64].contains(bits[1]), bits[0] >= 1, bits[0] + shift <= bits[1] else { throw bad() }
        littleEndian = parts[0] == "le"
        signed = signChar == "s"
        realBits = bits[0]; storageBits = bits[1]; self.shift = shift
    }

    public var storageBytes: Int { storageBits / 8 }

    /// Decodes one element at `offset` in `record`: byte order, shift, mask, sign extension.
    public func decode(_ record: UnsafeRawBufferPointer, at offset: Int) -> Int64 {
        var raw: UInt64 = 0
        for i in 0..<storageBytes {
            let byte = UInt64(record[offset + (littleEndian ? storageBytes - 1 - i : i)])
            raw = raw << 8 | byte
        }
        raw >>= UInt64(shift)
        if realBits < 64 {
            raw &= (UInt64(1) << UInt64(realBits)) - 1
            if signed && raw & (UInt64(1) << UInt64(realBits - 1)) != 0 { raw |= ~((UInt64(1) << UInt64(realBits)) - 1) }
        }
        return Int64(bitPattern: raw)
    }
}

/// Where each enabled channel sits in a buffer record: channels in `index` order, each aligned to
/// its own storage size, the record padded to the largest storage size (the kernel's layout).
public struct IIOScanLayout: Hashable, Sendable {
    public struct Channel: Hashable, Sendable {
        public var name: String
        public var index: Int
        public var type: IIOScanType
        public var offset: Int
    }
    public private(set) var channels: [Channel] = []
    public private(set) var recordBytes = 0

    public init(channels: [(name: String, index: Int, type: IIOScanType)]) {
        var offset = 0, largest = 1
        for c in channels.sorted(by: { $0.index < $1.index }) {
            let size = c.type.storageBytes
            offset = (offset + size - 1) / size * size
            self.channels.append(Channel(name: c.name, index: c.index, type: c.type, offset: offset))
            offset += size
            largest = max(largest, size)
        }
        recordBytes = (offset + largest - 1) / largest * largest
    }

    public func channel(_ name: String) -> Channel? { channels.first { $0.name == name } }
}

import Foundation  // trimmingCharacters, components(separatedBy:)

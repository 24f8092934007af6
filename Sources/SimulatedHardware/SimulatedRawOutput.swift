import Hardware

/// What the simulated camera's raw stream hands back when asked for the mode's unpacked raw
/// format, as the Raspberry Pi pipelines do (board option `camera.raw`, `SimulatedCamera.rawOutput`).
/// The samples are the same in every case: the mode's `bits`-bit values, laid out differently.
public enum SimulatedRawOutput: String, Sendable, CaseIterable {
    /// The format asked for: `S<order><bits>`, the value in the low bits of 16-bit words.
    case unpacked
    /// A Pi 5's front end: `S<order>16`, every mode's samples shifted up to the top of 16 bits.
    case pisp16
    /// A Pi 5 that insists on its compressed format: `<order>_PISP_COMP1` (the 16-bit samples
    /// compressed by `SimulatedPiSPCompressor` with libcamera's offset of 2048).
    case pispComp1 = "pisp-comp1"
    /// A Pi 4's Unicam: MIPI CSI-2 packed `S<order>10_CSI2P` / `S<order>12_CSI2P` (other depths
    /// stay unpacked: no packed form is modelled for them).
    case csi2Packed = "csi2-packed"

    /// Rows are padded to a multiple of this many bytes in every layout but `unpacked` (a
    /// modelling choice: real drivers pad rows too, so readers must honour the stride).
    static let rowAlignment = 32

    /// The option from a board's `camera.raw`; nil (absent) is `unpacked`.
    public init(board value: String?) throws {
        guard let value else { self = .unpacked; return }
        guard let output = SimulatedRawOutput(rawValue: value) else {
            throw HardwareError(.invalidArgument, "camera.raw '\(value)' is not one of "
                + Self.allCases.map(\.rawValue).joined(separator: ", "))
        }
        self = output
    }

    /// The delivered format and its bytes per row for a frame `width` wide of `bits`-bit samples.
    func layout(order: String, bits: Int, width: Int) -> (format: PixelFormat, stride: Int) {
        func aligned(_ bytes: Int) -> Int { (bytes + Self.rowAlignment - 1) / Self.rowAlignment * Self.rowAlignment }
        switch self {
        case .unpacked:
            return (PixelFormat("S\(order)\(bits)"), width * 2)
        case .pisp16:
            return (PixelFormat("S\(order)16"), aligned(width * 2))
        case .pispComp1:
            return (PixelFormat("\(order)_PISP_COMP1"), aligned(SimulatedPiSPCompressor.rowBytes(width: width)))
        case .csi2Packed:
            switch bits {
            case 10: return (PixelFormat("S\(order)10_CSI2P"), aligned((width + 3) / 4 * 5))
            case 12: return (PixelFormat("S\(order)12_CSI2P"), aligned((width + 1) / 2 * 3))
            default: return (PixelFormat("S\(order)\(bits)"), width * 2)
            }
        }
    }

    /// Writes `samples` (`width × height` values of `bits` bits, in the low bits) into `frame`
    /// in this layout, rows `stride` bytes apart; every byte of `frame` is written (padding 0).
    func pack(_ samples: UnsafeBufferPointer<UInt16>, width: Int, height: Int, bits: Int, stride: Int,
              into frame: UnsafeMutableRawBufferPointer) {
        guard let out = frame.baseAddress else { return }
        frame.initializeMemory(as: UInt8.self, repeating: 0)
        let bytes = out.assumingMemoryBound(to: UInt8.self)
        switch (self, bits) {
        case (.unpacked, _), (.csi2Packed, 8), (.csi2Packed, 14), (.csi2Packed, 16):
            for y in 0..<height {
                for x in 0..<width { out.storeBytes(of: samples[y * width + x].littleEndian, toByteOffset: y * stride + x * 2, as: UInt16.self) }
            }
        case (.pisp16, _):
            let shift = UInt16(16 - bits)
            for y in 0..<height {
                for x in 0..<width {
                    out.storeBytes(of: (samples[y * width + x] << shift).littleEndian, toByteOffset: y * stride + x * 2, as: UInt16.self)
                }
            }
        case (.pispComp1, _):
            SimulatedPiSPCompressor.compress(samples, width: width, height: height, shift: 16 - bits, stride: stride, into: bytes)
        case (.csi2Packed, 10):
            for y in 0..<height {
                for x in 0..<width {
                    let v = Int(samples[y * width + x]), group = y * stride + x / 4 * 5, k = x % 4
                    bytes[group + k] = UInt8(v >> 2)
                    bytes[group + 4] |= UInt8(v & 3) << (2 * k)
                }
            }
        case (.csi2Packed, _):
            for y in 0..<height {
                for x in 0..<width {
                    let v = Int(samples[y * width + x]), group = y * stride + x / 2 * 3, k = x % 2
                    bytes[group + k] = UInt8(v >> 4)
                    bytes[group + 2] |= UInt8(v & 15) << (4 * k)
                }
            }
        }
    }
}

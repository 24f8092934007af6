import Foundation
import Hardware

/// One frame's exposure in the sensor's raw domain: raw level (1 = full well) per unit of cached
/// camera value for each channel, and the noise model's constants.
struct FrameExposure {
    /// Raw level of a white diffuser in R, G, B (the light's colour included).
    var channelScale: SIMD3<Float>
    /// Electrons per unit raw level (full well / analogue gain).
    var electronsPerUnit: Float
    /// Read noise variance, electrons².
    var readVariance: Float
    /// Raw units per electron, divided by the noise averaged away by binning or downscaling.
    var sigmaScale: Float
}

/// Standard normal deviates, drawn once; each row of a frame reads from a random offset. A table
/// of 128 Ki values is far longer than any row, so no pattern shows.
struct NoiseTable {
    static let count = 1 << 17
    /// Rows never wrap: the table is padded by the widest row.
    static let padding = 8192
    let values: [Float]

    init(seed: UInt64) {
        var rng = SeededGenerator(seed: seed)
        values = (0..<(Self.count + Self.padding)).map { _ in Float(rng.gaussian()) }
    }

    static func offset(_ bits: UInt64) -> Int { Int(bits & UInt64(count - 1)) }
}

/// The per-frame passes over cached scene planes: exposure, shot and read noise, clipping, then
/// either quantising to raw codes or the simulated ISP (white balance, colour correction, sRGB
/// gamma). Eight pixels at a time in SIMD registers, using only operations the compiler inlines
/// (the generic SIMD `squareRoot`, `clamped` and float-to-integer conversions become scalar calls):
/// square roots from a bit-trick reciprocal root and one Newton step, integers from floats by
/// adding 2²³ and taking the low mantissa bits. Scene planes are padded so the last block of a row
/// may read past it.
enum FramePasses {
    /// 2²³: added to a float in 0…65535, its low mantissa bits are the value rounded to an integer.
    private static let magic: Float = 8_388_608

    /// Bayer codes in little-endian 16-bit words: black + level × (white − black), clipped.
    static func raw(_ planes: ScenePlanes, exposure e: FrameExposure, cfa: [Int], black: Float, white: Float,
                    noise: NoiseTable, rng: SeededGenerator, into frame: UnsafeMutableRawBufferPointer) {
        let w = planes.size.width, h = planes.size.height
        precondition(frame.count >= w * h * 2)
        let range = white - black, offset = black + magic
        let rowNoise = RowBands.draws(rows: h, rng)
        planes.values.withUnsafeBufferPointer { src in
            noise.values.withUnsafeBufferPointer { table in
                guard let words = frame.baseAddress, let s = src.baseAddress, let t = table.baseAddress else { return }
                RowBands.run(rows: h) { band in for j in band {
                    let even = e.channelScale[cfa[(j & 1) * 2]], odd = e.channelScale[cfa[(j & 1) * 2 + 1]]
                    let scale = SIMD8<Float>(even, odd, even, odd, even, odd, even, odd)
                    let row = s + j * w, n = t + NoiseTable.offset(rowNoise[j])
                    var i = 0
                    while i < w {
                        let v = exposed(load(row + i) * scale, noise: load(n + i), e) * range + offset
                        let code = SIMD8<UInt16>(truncatingIfNeeded: unsafeBitCast(v, to: SIMD8<UInt32>.self) & 0xFFFF)
                        if i + 8 <= w {
                            words.storeBytes(of: code, toByteOffset: (j * w + i) * 2, as: SIMD8<UInt16>.self)
                        } else {
                            for k in 0..<(w - i) { words.storeBytes(of: code[k], toByteOffset: (j * w + i + k) * 2, as: UInt16.self) }
                        }
                        i += 8
                    }
                } }
            }
        }
    }

    /// Exposed, noisy raw levels clipped to 0…1: level + σ·noise, σ from shot and read noise.
    @inline(__always)
    private static func exposed(_ v: SIMD8<Float>, noise: SIMD8<Float>, _ e: FrameExposure) -> SIMD8<Float> {
        let signal = v.replacing(with: 0, where: v .< 0)
        let sigma = squareRoot(signal * e.electronsPerUnit + e.readVariance) * e.sigmaScale
        return clip(v + sigma * noise)
    }

    /// √x for positive normal x (within 0.2 %): x · 1/√x, the reciprocal root from the bit-trick guess and one
    /// Newton step (multiplications only; division is slow).
    @inline(__always)
    private static func squareRoot(_ x: SIMD8<Float>) -> SIMD8<Float> {
        let bits = unsafeBitCast(x, to: SIMD8<UInt32>.self)
        let y = unsafeBitCast(0x5F37_59DF &- (bits &>> 1), to: SIMD8<Float>.self)
        return x * y * (1.5 - 0.5 * x * y * y)
    }

    @inline(__always)
    private static func clip(_ v: SIMD8<Float>) -> SIMD8<Float> {
        v.replacing(with: 0, where: v .< 0).replacing(with: 1, where: v .> 1)
    }

    @inline(__always)
    private static func load(_ p: UnsafePointer<Float>) -> SIMD8<Float> {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self)
    }

    /// The simulated ISP's settings for one frame.
    struct ISP {
        /// White-balance gains × digital gain for R, G, B.
        var gains: SIMD3<Float>
        /// Colour correction (white-balanced camera RGB → linear sRGB), by rows.
        var matrix: (SIMD3<Float>, SIMD3<Float>, SIMD3<Float>)
        /// The sRGB encoding over every value `matrix` can give.
        var encoding: Encoding

        /// The sRGB transfer curve over 4096 linear steps, 8-bit.
        static func srgbCurve() -> [UInt8] {
            (0..<4096).map { k in
                let x = Double(k) / 4095
                let y = x <= 0.003_130_8 ? 12.92 * x : 1.055 * pow(x, 1 / 2.4) - 0.055
                return UInt8((y * 255).rounded())
            }
        }
    }

    /// The sRGB curve (`ISP.srgbCurve`, 4096 steps over 0…1) extended, clipped, over the whole range
    /// a colour matrix gives for inputs in 0…1 (its rows' negative sums to their positive sums), so
    /// the ISP indexes it without clipping its output: code `offset` is linear 0, each step 1/4095.
    struct Encoding {
        let values: [UInt8]
        /// Index of linear 0.
        let offset: Int
        /// values.count − 1 (a power of two less one): indices are masked, so none falls outside.
        var mask: UInt32 { UInt32(values.count - 1) }

        /// `toneMap` (linear 0…1 in, 0…1 out) goes before the sRGB curve: HDR's highlight roll-off.
        init(matrix: [Float], toneMap: ((Double) -> Double)? = nil) {
            let srgb = ISP.srgbCurve()
            let curve = toneMap.map { map in
                (0..<4096).map { k in srgb[min(max(Int((map(Double(k) / 4095) * 4095).rounded()), 0), 4095)] }
            } ?? srgb
            var low: Float = 0, high: Float = 1
            for row in 0..<3 {
                let entries = matrix[(3 * row)..<(3 * row + 3)]
                low = min(low, entries.filter { $0 < 0 }.reduce(0, +))
                high = max(high, entries.filter { $0 > 0 }.reduce(0, +))
            }
            let zero = Int((-low * 4095).rounded(.up)) + 4  // a few steps of margin for rounding
            var count = 1
            while count < zero + Int((high * 4095).rounded(.up)) + 4 { count *= 2 }
            offset = zero
            values = (0..<count).map { curve[min(max($0 - zero, 0), 4095)] }
        }
    }

    /// A processed frame: each row is exposed with noise, developed by `isp` into 8-bit R, G, B
    /// rows, then packed by `packer` into the frame's bytes.
    ///
    /// Per channel: raw level u = value × scale × gain (white balance folded in), noise σ·gain from
    /// √(u·A + B) with the noise constants scaled to match, clipped to 0…min(gain, 1) (so clipped
    /// highlights stay white, as clipping at full well then after the gain does); then the colour
    /// matrix (× 4095) straight into the extended encoding table.
    static func processed(_ planes: ScenePlanes, exposure e: FrameExposure, isp: ISP, noise: NoiseTable,
                          rng: SeededGenerator, packer: FramePacker, into frame: UnsafeMutableRawBufferPointer) {
        let w = planes.size.width, h = planes.size.height, n = w * h
        planes.values.withUnsafeBufferPointer { src in
            guard let s = src.baseAddress else { return }
            processed(size: planes.size, rows: { band, develop in for j in band { develop(j, s + j * w, n) } },
                      exposure: e, isp: isp, noise: noise, rng: rng, packer: packer, into: frame)
        }
    }

    /// The same for planes drawn row by row (`MovedRows`): `rows(band, develop)` calls `develop`
    /// with each row of the band in order, as (row, red values, values to green and on to blue).
    /// Bands run at the same time, each calling `rows` once.
    static func processed(size: PixelSize, rows: (Range<Int>, (Int, UnsafePointer<Float>, Int) -> Void) -> Void,
                          exposure e: FrameExposure, isp: ISP, noise: NoiseTable,
                          rng: SeededGenerator, packer: FramePacker, into frame: UnsafeMutableRawBufferPointer) {
        let w = size.width, h = size.height
        let padded = (w + 15) & ~15
        let rowNoise = RowBands.draws(rows: h, rng)
        let (m0, m1, m2) = isp.matrix
        let gains = isp.gains.replacing(with: 0, where: isp.gains .< 0)
        let u = e.channelScale * gains, top = gains.replacing(with: 1, where: gains .> 1)
        // σ·gain = √(u·a·c²·gain + b²·c²·gain²), u the white-balanced level.
        let c2 = e.sigmaScale * e.sigmaScale
        let slope = e.electronsPerUnit * c2 * gains, read = e.readVariance * c2 * gains * gains
        let k0 = m0 * 4095, k1 = m1 * 4095, k2 = m2 * 4095
        let offset = Float(isp.encoding.offset) + magic, mask = isp.encoding.mask
        precondition(frame.count >= packer.byteCount)
        noise.values.withUnsafeBufferPointer { table in
            isp.encoding.values.withUnsafeBufferPointer { curve in
                guard let t = table.baseAddress, let g = curve.baseAddress,
                      let f = frame.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
                RowBands.run(rows: h) { band in
                    // Each band its own row memory and packer (bands start on even rows: YUV420 pairs stay whole).
                    var codes = [UInt32](repeating: 0, count: 3 * padded)
                    var developedRows = [UInt8](repeating: 0, count: 3 * padded)
                    var packer = packer
                    codes.withUnsafeMutableBufferPointer { code in
                        developedRows.withUnsafeMutableBufferPointer { rgb in
                            guard let q = code.baseAddress, let out = rgb.baseAddress else { return }
                            let indices = UnsafeMutableRawPointer(q)
                            rows(band) { j, r0, cs in
                                let bits = rowNoise[j]
                                let nr = t + NoiseTable.offset(bits), ng = t + NoiseTable.offset(bits >> 20)
                                let nb = t + NoiseTable.offset(bits >> 40)
                                let g0 = r0 + cs, b0 = g0 + cs
                                var i = 0
                                while i < w {
                                    let br = developed(load(r0 + i) * u.x, noise: load(nr + i), slope.x, read.x, top.x)
                                    let bg = developed(load(g0 + i) * u.y, noise: load(ng + i), slope.y, read.y, top.y)
                                    let bb = developed(load(b0 + i) * u.z, noise: load(nb + i), slope.z, read.z, top.z)
                                    let lr = k0.x * br + k0.y * bg + k0.z * bb + offset
                                    let lg = k1.x * br + k1.y * bg + k1.z * bb + offset
                                    let lb = k2.x * br + k2.y * bg + k2.z * bb + offset
                                    indices.storeBytes(of: unsafeBitCast(lr, to: SIMD8<UInt32>.self) & mask, toByteOffset: i * 4,
                                                       as: SIMD8<UInt32>.self)
                                    indices.storeBytes(of: unsafeBitCast(lg, to: SIMD8<UInt32>.self) & mask,
                                                       toByteOffset: (padded + i) * 4, as: SIMD8<UInt32>.self)
                                    indices.storeBytes(of: unsafeBitCast(lb, to: SIMD8<UInt32>.self) & mask,
                                                       toByteOffset: (2 * padded + i) * 4, as: SIMD8<UInt32>.self)
                                    i += 8
                                }
                                for k in 0..<(3 * padded) { out[k] = g[Int(truncatingIfNeeded: q[k])] }
                                packer.pack(row: j, rgb: UnsafePointer(out), channelStride: padded, into: f)
                            }
                        }
                    }
                }
            }
        }
    }

    /// One channel of a processed pixel: white-balanced level `u` plus noise, clipped to 0…top.
    @inline(__always)
    private static func developed(_ u: SIMD8<Float>, noise: SIMD8<Float>, _ slope: Float, _ read: Float, _ top: Float) -> SIMD8<Float> {
        let v = u + squareRoot(nonNegative(u) * slope + read) * noise
        // min(max(v, 0), top) on the bits: non-negative floats order as their bit patterns do, and
        // integer masks avoid the float compare masks SSE2 builds by shuffling.
        let bits = unsafeBitCast(nonNegative(v), to: SIMD8<Int32>.self), limit = SIMD8<Int32>(repeating: Int32(bitPattern: top.bitPattern))
        let over = (limit &- bits) &>> 31
        return unsafeBitCast((bits & ~over) | (limit & over), to: SIMD8<Float>.self)
    }

    /// max(v, 0) by the sign bit: negative lanes (and −0) become 0.
    @inline(__always)
    private static func nonNegative(_ v: SIMD8<Float>) -> SIMD8<Float> {
        let bits = unsafeBitCast(v, to: SIMD8<Int32>.self)
        return unsafeBitCast(bits & ~(bits &>> 31), to: SIMD8<Float>.self)
    }
}

/// Frame rows drawn in bands on every core: the calling thread and Dispatch's workers.
enum RowBands {
    static let cores = max(1, ProcessInfo.processInfo.activeProcessorCount)

    /// One random draw per row, in row order: a row's noise does not depend on which band draws it.
    static func draws(rows: Int, _ rng: SeededGenerator) -> [UInt64] {
        var rng = rng
        return (0..<rows).map { _ in rng.next() }
    }

    /// Calls `body` with bands of rows covering 0..<rows, concurrently; every band but the last
    /// has an even row count and starts on an even row. Small frames are one band. `body` must
    /// write only its own rows (and its own locals): bands run at the same time.
    static func run(rows: Int, _ body: (Range<Int>) -> Void) {
        let bands = min(2 * cores, rows / 64)
        guard bands > 1 else { body(0..<rows); return }
        let perBand = ((rows + bands - 1) / bands + 1) & ~1
        withoutActuallyEscaping(body) { body in
            let shared = DisjointRows(body: body)
            DispatchQueue.concurrentPerform(iterations: bands) { b in
                let band = min(b * perBand, rows)..<min((b + 1) * perBand, rows)
                if !band.isEmpty { shared.body(band) }
            }
        }
    }

    /// A band body shared by the bands' threads: sound because each band writes rows no other touches.
    private struct DisjointRows: @unchecked Sendable { let body: (Range<Int>) -> Void }
}

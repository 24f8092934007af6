import Foundation  // DispatchQueue.concurrentPerform
import Hardware
import Video

/// One frame's rotation warp on the CPU: every output row band through its own homography
/// (`WarpGeometry.homography`), sampled bilinearly from the I420 source in integers: along a row,
/// blocks of 16 outputs whose source points are exact at both ends and stepped in fixed point
/// between, each block's taps gathered into 16-bit SIMD lanes and blended 16 at a time.
/// Chroma uses the homography of its luma rows at half resolution. Points outside the source
/// repeat its edge (the margin keeps them inside unless the sidecar says it was hit).
public struct YUVRotationWarp: VideoFrameWarp {
    public let geometry: WarpGeometry
    /// One per band of `geometry`, top to bottom.
    public let bands: [Homography]
    /// Threads the bands are shared between (1: the calling thread only).
    public let threads: Int

    public init(geometry: WarpGeometry, bands: [Homography], threads: Int = 2) {
        self.geometry = geometry; self.bands = bands; self.threads = max(1, threads)
    }

    public func warp(source: UnsafeRawPointer, sourceStride: Int, into target: UnsafeMutableRawPointer, targetStride: Int,
                     size: PixelSize) {
        let w = size.width, h = size.height
        guard w >= 2, h >= 2, !bands.isEmpty else { return }
        let (maps, bandRows) = Self.maps(bands, geometry: geometry, size: size)
        let src = source.assumingMemoryBound(to: UInt8.self), dst = target.assumingMemoryBound(to: UInt8.self)
        let srcU = src + sourceStride * h, srcV = srcU + (sourceStride / 2) * ((h + 1) / 2)
        let dstU = dst + targetStride * h, dstV = dstU + (targetStride / 2) * ((h + 1) / 2)
        let planes = Planes(src: src, srcU: srcU, srcV: srcV, dst: dst, dstU: dstU, dstV: dstV,
                            sourceStride: sourceStride, targetStride: targetStride, width: w, height: h)
        let chunks = min(threads, max(1, h / 64))
        let rowsPerChunk = ((h + chunks - 1) / chunks + 1) & ~1
        let work: @Sendable (Int) -> Void = { chunk in
            let rows = min(chunk * rowsPerChunk, h)..<min((chunk + 1) * rowsPerChunk, h)
            for y in rows {
                let map = maps[min(y / bandRows, maps.count - 1)]
                Self.lumaRow(y, map: map, planes)
                if y & 1 == 0 { Self.chromaRow(y / 2, map: map, planes) }
            }
        }
        if chunks == 1 { work(0) } else { DispatchQueue.concurrentPerform(iterations: chunks, execute: work) }
    }

    /// The bands' maps for a frame of `size`, and the frame rows each covers: the geometry is for
    /// its own size; a frame of another size is mapped through the scale.
    static func maps(_ bands: [Homography], geometry: WarpGeometry, size: PixelSize) -> (maps: [FloatMap], bandRows: Int) {
        let scale = Double(size.width) / Double(max(geometry.size.width, 1))
        let bandRows = max(1, Int((Double(geometry.bandRows) * Double(size.height) / Double(max(geometry.size.height, 1))).rounded()))
        return (bands.map { FloatMap($0, scale: scale) }, bandRows)
    }

    /// Pointers and strides of the source and target planes (the target's rows are written by one
    /// chunk each).
    struct Planes: @unchecked Sendable {
        let src, srcU, srcV: UnsafePointer<UInt8>
        let dst, dstU, dstV: UnsafeMutablePointer<UInt8>
        let sourceStride, targetStride, width, height: Int
    }

    /// A homography in Float for one frame size: centred coordinates in frame pixels.
    struct FloatMap: Sendable {
        let r0, r1, r2: SIMD3<Float>
        init(_ h: Homography, scale s: Double) {
            // H' = S·H·S⁻¹ with S = diag(s, s, 1); a map that is not finite (a broken orientation)
            // leaves the frame as it is rather than sample nowhere.
            let finite = [h.row0, h.row1, h.row2].allSatisfy { $0.x.isFinite && $0.y.isFinite && $0.z.isFinite }
            let h = finite ? h : Homography(row0: SIMD3(1, 0, 0), row1: SIMD3(0, 1, 0), row2: SIMD3(0, 0, 1))
            r0 = SIMD3(Float(h.row0.x), Float(h.row0.y), Float(h.row0.z * s))
            r1 = SIMD3(Float(h.row1.x), Float(h.row1.y), Float(h.row1.z * s))
            r2 = SIMD3(Float(h.row2.x / s), Float(h.row2.y / s), Float(h.row2.z))
        }
    }


    /// Output luma row y: centred x, y of each pixel centre through the map, bilinear taps.
    private static func lumaRow(_ y: Int, map: FloatMap, _ p: Planes) {
        let halfW = Float(p.width) / 2, halfH = Float(p.height) / 2
        let cy = Float(y) + 0.5 - halfH
        sampleRow(into: p.dst + y * p.targetStride, count: p.width, from: p.src, stride: p.sourceStride, step: 1,
                  sourceWidth: p.width, sourceHeight: p.height, map: map, y: cy, xStep: 1, xStart: 0.5 - halfW,
                  toSource: 1, sourceOffset: (halfW - 0.5, halfH - 0.5))
    }

    /// Output chroma row cy (both planes): each sample's centre in luma coordinates through the
    /// map, then back to chroma coordinates.
    private static func chromaRow(_ cy: Int, map: FloatMap, _ p: Planes) {
        let halfW = Float(p.width) / 2, halfH = Float(p.height) / 2
        let cw = (p.width + 1) / 2, ch = (p.height + 1) / 2
        let y = Float(2 * cy + 1) - halfH
        for (src, dst) in [(p.srcU, p.dstU), (p.srcV, p.dstV)] {
            sampleRow(into: dst + cy * (p.targetStride / 2), count: cw, from: src, stride: p.sourceStride / 2, step: 1,
                      sourceWidth: cw, sourceHeight: ch, map: map, y: y, xStep: 2, xStart: 1 - halfW,
                      toSource: 0.5, sourceOffset: (halfW / 2 - 0.5, halfH / 2 - 0.5))
        }
    }

    /// Outputs per block: each block's first and last source points are exact (two divides), the
    /// ones between stepped linearly in 16.16 fixed point. Along a block of 16 the projective map
    /// departs from the line by under 0.001 px for any view within a 20 % margin.
    static let blockLength = 16

    /// `count` outputs of one row: output i is at centred luma (xStart + i·xStep, y); its source
    /// point (centred luma) × `toSource` + `sourceOffset` is in the plane's pixel coordinates.
    /// Samples are `step` bytes apart along a row, in the output as in the source (1 for a plane,
    /// 3 or 4 for one channel of packed RGB). Bilinear in integers with 8-bit fractions (a point
    /// is placed within 1/256 px; OpenCV's warpPerspective uses 1/32).
    @inline(__always)
    static func sampleRow(into out: UnsafeMutablePointer<UInt8>, count: Int, from plane: UnsafePointer<UInt8>, stride: Int, step: Int,
                          sourceWidth: Int, sourceHeight: Int, map: FloatMap, y: Float, xStep: Float, xStart: Float,
                          toSource: Float, sourceOffset: (Float, Float)) {
        let a0 = map.r0.y * y + map.r0.z, b0 = map.r1.y * y + map.r1.z, c0 = map.r2.y * y + map.r2.z
        let r0x = map.r0.x, r1x = map.r1.x, r2x = map.r2.x
        let maxX = Float(sourceWidth - 1), maxY = Float(sourceHeight - 1)
        /// Output i's source point in the plane's pixels.
        @inline(__always) func point(_ i: Int) -> (x: Float, y: Float) {
            let x = xStart + Float(i) * xStep
            let inv = toSource / max(r2x * x + c0, 1e-6)
            return ((r0x * x + a0) * inv + sourceOffset.0, (r1x * x + b0) * inv + sourceOffset.1)
        }
        /// Strictly inside the last pixel's centre, so the right and lower taps exist.
        @inline(__always) func inside(_ p: (x: Float, y: Float)) -> Bool { p.x >= 0 && p.x < maxX && p.y >= 0 && p.y < maxY }
        var i = 0
        while i < count {
            let n = min(blockLength, count - i)
            let first = point(i), last = n > 1 ? point(i + n - 1) : first
            let target = out + i * step
            if inside(first) && inside(last) {
                // The whole block lies between two inside points: no clamping.
                let fx = Int(first.x * 65536), fy = Int(first.y * 65536)
                if n == blockLength {
                    // The divisor a constant: a multiply, not a divide (the same quotient).
                    let dx = (Int(last.x * 65536) - fx) / (blockLength - 1), dy = (Int(last.y * 65536) - fy) / (blockLength - 1)
                    blendSixteen(into: target, from: plane, stride: stride, step: step, fx: fx, fy: fy, dx: dx, dy: dy)
                } else {
                    let dx = n > 1 ? (Int(last.x * 65536) - fx) / (n - 1) : 0, dy = n > 1 ? (Int(last.y * 65536) - fy) / (n - 1) : 0
                    blendBlock(into: target, count: n, from: plane, stride: stride, step: step, fx: fx, fy: fy, dx: dx, dy: dy)
                }
            } else {
                // Near or beyond the edge (the margin was hit): each point exact, clamped, the
                // edge repeated.
                for k in 0..<n {
                    let p = point(i + k)
                    let sx = p.x.isNaN ? 0 : min(max(p.x, 0), maxX), sy = p.y.isNaN ? 0 : min(max(p.y, 0), maxY)
                    blendClamped(into: target + k * step, from: plane, stride: stride, step: step,
                                 fx: Int(sx * 65536), fy: Int(sy * 65536), lastX: sourceWidth - 1, lastY: sourceHeight - 1)
                }
            }
            i += n
        }
    }

    /// `count` samples from 16.16 source points (fx, fy) + k·(dx, dy), all strictly inside.
    @inline(__always)
    private static func blendBlock(into out: UnsafeMutablePointer<UInt8>, count: Int, from plane: UnsafePointer<UInt8>, stride: Int,
                                   step: Int, fx: Int, fy: Int, dx: Int, dy: Int) {
        var fx = fx, fy = fy
        for k in 0..<count {
            let top = plane + ((fy &>> 16) &* stride &+ (fx &>> 16) &* step)
            let ax = (fx &>> 8) & 0xFF, ay = (fy &>> 8) & 0xFF
            out[k &* step] = blend(Int(top[0]), Int(top[step]), Int(top[stride]), Int(top[stride &+ step]), ax: ax, ay: ay)
            fx &+= dx; fy &+= dy
        }
    }

    /// `blendBlock` for a whole block of 16, the blend in SIMD: each lane's two taps of a row
    /// as one byte pair (left in the low byte, right in the high) in a 16-bit lane, the
    /// fractions stepped in 16-bit lanes (bits 8…15 of fx + k·dx need only its low 16 bits), then
    /// `blend`'s arithmetic on all 16 at once (`blend16`), so the bytes are the same.
    @inline(__always)
    private static func blendSixteen(into out: UnsafeMutablePointer<UInt8>, from plane: UnsafePointer<UInt8>, stride: Int, step: Int,
                                     fx: Int, fy: Int, dx: Int, dy: Int) {
        /// Lane k's top-left tap, bytes from `plane`.
        @inline(__always) func offset(_ k: Int) -> Int { ((fy &+ k &* dy) &>> 16) &* stride &+ ((fx &+ k &* dx) &>> 16) &* step }
        /// The taps at `o` and one sample right of it (adjacent bytes in a plane: one 16-bit load).
        @inline(__always) func pair(_ o: Int) -> UInt16 {
            step == 1 ? UInt16(littleEndian: UnsafeRawPointer(plane).loadUnaligned(fromByteOffset: o, as: UInt16.self))
                : UInt16(plane[o]) | UInt16(plane[o &+ step]) &<< 8
        }
        // The pairs go through memory: 32 scalar stores and two vector loads cost less than
        // building the vectors lane by lane in registers (each lane a move and a shuffle).
        let (upper, lower) = withUnsafeTemporaryAllocation(of: UInt16.self, capacity: 32) { buffer in
            let pairs = buffer.baseAddress.unsafelyUnwrapped
            for k in 0..<16 {
                let o = offset(k)
                pairs[k] = pair(o); pairs[16 &+ k] = pair(o &+ stride)
            }
            let raw = UnsafeRawPointer(pairs)
            return (raw.loadUnaligned(as: SIMD16<UInt16>.self), raw.loadUnaligned(fromByteOffset: 32, as: SIMD16<UInt16>.self))
        }
        let k = SIMD16<UInt16>(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
        @inline(__always) func fraction(_ f: Int, _ d: Int) -> SIMD16<UInt16> {
            (UInt16(truncatingIfNeeded: f) &+ k &* UInt16(truncatingIfNeeded: d)) &>> 8
        }
        let values = blend16(upper & 0xFF, upper &>> 8, lower & 0xFF, lower &>> 8, ax: fraction(fx, dx), ay: fraction(fy, dy))
        if step == 1 {
            var bytes = SIMD16<UInt8>()
            for k in 0..<16 { bytes[k] = UInt8(truncatingIfNeeded: values[k]) }
            UnsafeMutableRawPointer(out).storeBytes(of: bytes, as: SIMD16<UInt8>.self)
        } else {
            for k in 0..<16 { out[k &* step] = UInt8(truncatingIfNeeded: values[k]) }
        }
    }

    /// `blend` on 16 lanes at once, in 16-bit lanes (what SSE2 and NEON multiply cheaply), with
    /// the same result. The rows' blends (upper, lower: 0…65280) are exact in wrapping 16-bit
    /// arithmetic. The last step, (upper·256 + (lower − upper)·ay + 32768) >> 16, needs 24 bits;
    /// with upper = 256·uh + ul and lower = 256·lh + ll it is
    /// (a + (b >> 8) + 128) >> 8 for a = uh·(256 − ay) + lh·ay and b = ul·(256 − ay) + ll·ay, each
    /// at most 65280, and a + (b >> 8) + 128 < 65536 since the result is at most 255.
    @inline(__always)
    static func blend16(_ p00: SIMD16<UInt16>, _ p10: SIMD16<UInt16>, _ p01: SIMD16<UInt16>, _ p11: SIMD16<UInt16>,
                        ax: SIMD16<UInt16>, ay: SIMD16<UInt16>) -> SIMD16<UInt16> {
        let upper = (p00 &<< 8) &+ (p10 &- p00) &* ax, lower = (p01 &<< 8) &+ (p11 &- p01) &* ax
        let by = 256 &- ay
        let a = (upper &>> 8) &* by &+ (lower &>> 8) &* ay
        let b = (upper & 0xFF) &* by &+ (lower & 0xFF) &* ay
        return (a &+ (b &>> 8) &+ 128) &>> 8
    }

    /// One sample at a clamped 16.16 point; the taps beyond the last column or row repeat it.
    @inline(__always)
    private static func blendClamped(into out: UnsafeMutablePointer<UInt8>, from plane: UnsafePointer<UInt8>, stride: Int, step: Int,
                                     fx: Int, fy: Int, lastX: Int, lastY: Int) {
        let x0 = fx &>> 16, y0 = fy &>> 16
        let right = x0 < lastX ? step : 0, down = y0 < lastY ? stride : 0
        let top = plane + (y0 &* stride &+ x0 &* step)
        out[0] = blend(Int(top[0]), Int(top[right]), Int(top[down]), Int(top[down &+ right]), ax: (fx &>> 8) & 0xFF, ay: (fy &>> 8) & 0xFF)
    }

    /// Bilinear blend of four taps with 8-bit fractions, rounded; a convex combination, so 0...255.
    @inline(__always)
    private static func blend(_ p00: Int, _ p10: Int, _ p01: Int, _ p11: Int, ax: Int, ay: Int) -> UInt8 {
        let upper = (p00 &<< 8) &+ (p10 &- p00) &* ax, lower = (p01 &<< 8) &+ (p11 &- p01) &* ax
        return UInt8(truncatingIfNeeded: ((upper &<< 8) &+ (lower &- upper) &* ay &+ 32768) &>> 16)
    }
}

import Foundation  // DispatchQueue.concurrentPerform
import Hardware
import Video

/// One frame's rotation warp on the CPU: every output row band through its own homography
/// (`WarpGeometry.homography`), sampled bilinearly from the I420 source, eight pixels at a time:
/// the source points lane by lane, the four taps gathered into SIMD8<Float> and blended there.
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
        // The geometry is for its own size; a frame of another size is mapped through the scale.
        let scale = Double(w) / Double(max(geometry.size.width, 1))
        let bandRows = max(1, Int((Double(geometry.bandRows) * Double(h) / Double(max(geometry.size.height, 1))).rounded()))
        let maps = bands.map { FloatMap($0, scale: scale) }
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

    /// `count` outputs of one row: output i is at centred luma (xStart + i·xStep, y); its source
    /// point (centred luma) × `toSource` + `sourceOffset` is in the plane's pixel coordinates.
    /// Samples are `step` bytes apart along a row, in the output as in the source (1 for a plane,
    /// 3 or 4 for one channel of packed RGB).
    @inline(__always)
    static func sampleRow(into out: UnsafeMutablePointer<UInt8>, count: Int, from plane: UnsafePointer<UInt8>, stride: Int, step: Int,
                                  sourceWidth: Int, sourceHeight: Int, map: FloatMap, y: Float, xStep: Float, xStart: Float,
                                  toSource: Float, sourceOffset: (Float, Float)) {
        let a0 = map.r0.y * y + map.r0.z, b0 = map.r1.y * y + map.r1.z, c0 = map.r2.y * y + map.r2.z
        let r0x = map.r0.x, r1x = map.r1.x, r2x = map.r2.x
        let maxX = Float(sourceWidth - 1), maxY = Float(sourceHeight - 1)
        let lastX = sourceWidth - 1, lastY = sourceHeight - 1
        // Along the row the numerators and the denominator are affine in x: advanced by one
        // output step at a time within blocks of eight; each block's taps are gathered into
        // SIMD8<Float> through a small buffer and blended there.
        let dnx = r0x * xStep, dny = r1x * xStep, dd = r2x * xStep
        var taps = (SIMD8<Float>(), SIMD8<Float>(), SIMD8<Float>(), SIMD8<Float>(), SIMD8<Float>(), SIMD8<Float>())
        withUnsafeMutableBytes(of: &taps) { raw in
            guard let base = raw.baseAddress else { return }
            let t = base.assumingMemoryBound(to: Float.self)
            var i = 0
            while i < count {
                // From x at each block's start (no drift along a long row), then stepped.
                let x = xStart + Float(i) * xStep
                var nx = r0x * x + a0, ny = r1x * x + b0, d = r2x * x + c0
                for k in 0..<8 {
                    let den = max(d, 1e-6), inv = toSource / den
                    let sx = min(max(nx * inv + sourceOffset.0, 0), maxX)
                    let sy = min(max(ny * inv + sourceOffset.1, 0), maxY)
                    nx += dnx; ny += dny; d += dd
                    let x0 = Int(sx), y0 = Int(sy)  // ≥ 0: truncation is the floor
                    let x1 = x0 < lastX ? x0 + 1 : x0, y1 = y0 < lastY ? y0 + 1 : y0
                    let top = plane + y0 * stride, bottom = plane + y1 * stride
                    t[k] = Float(top[x0 * step]); t[8 + k] = Float(top[x1 * step])
                    t[16 + k] = Float(bottom[x0 * step]); t[24 + k] = Float(bottom[x1 * step])
                    t[32 + k] = sx - Float(x0); t[40 + k] = sy - Float(y0)
                }
                let p = UnsafeRawPointer(t)
                let p00 = p.load(as: SIMD8<Float>.self), p10 = p.load(fromByteOffset: 32, as: SIMD8<Float>.self)
                let p01 = p.load(fromByteOffset: 64, as: SIMD8<Float>.self), p11 = p.load(fromByteOffset: 96, as: SIMD8<Float>.self)
                let tx = p.load(fromByteOffset: 128, as: SIMD8<Float>.self), ty = p.load(fromByteOffset: 160, as: SIMD8<Float>.self)
                let upper = p00 + (p10 - p00) * tx, lower = p01 + (p11 - p01) * tx
                let value = (upper + (lower - upper) * ty + 0.5).clamped(lowerBound: SIMD8(repeating: 0), upperBound: SIMD8(repeating: 255))
                let n = min(8, count - i)
                for k in 0..<n { out[(i + k) * step] = UInt8(value[k]) }
                i += 8
            }
        }
    }
}

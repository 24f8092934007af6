import Foundation
import Hardware

/// Draws `sim scene object` into `ScenePlanes`: a true pinhole through the sensor mode. Each
/// output pixel covers `crop` (sensor pixels) at its scale; the principal point is the pixel
/// array's centre and the focal length is the lens's over the pixel pitch (sensor pixels), so a
/// binned or cropped mode and a ScalerCrop see exactly what that part of the sensor sees. Each
/// pixel is one ray through its centre; the textures are filtered bilinearly. The rest of the frame's path is the
/// chart's: defocus (uniform, from the distance to the point the rig looks at), the IMU's motion
/// (pointing, motion blur, rolling-shutter skew, as image shifts), exposure, noise, Bayer or ISP.
extension SimulatedFrameRenderer {
    /// Focal length in sensor pixels.
    var focalLengthSensorPixels: Double { focalLengthPixels(sensorPixelsPerOutputPixel: 1) }

    /// The object scene through `crop` at `size`, drawn when the frame's pixels are first read
    /// (a stream nobody reads costs nothing); the last few drawings are kept, so a still scene on
    /// a still rig is drawn once per stream.
    ///
    /// Streaming frames (every role but stills and raw) are ray cast on a coarser grid, at most
    /// `streamingDrawWidth` wide with one ray a pixel, and each sample repeated over the pixels it
    /// covers: what reads them (metering, status, a video HDR measure) reads them on the rig's
    /// loop, and a spinning object must be drawn afresh every time.
    func objectPlaneSource(crop: PixelRect, size: PixelSize, kind: ScenePlanes.Kind, role: StreamRole, scene: SimulatedScene,
                           defocusPixels: Double) -> PlaneSource {
        let coarse = role == .stillCapture || role == .raw ? 1 : max(1, (size.width + Self.streamingDrawWidth - 1) / Self.streamingDrawWidth)
        let key = ObjectPlaneCache.Key(crop: crop, size: size, kind: kind, pose: scene.pose,
                                       rotationDegrees: scene.object?.rotationDegrees ?? 0,
                                       blurSteps: Int((defocusPixels / Self.blurStepPixels).rounded()), coarse: coarse)
        let pixelArray = self.pixelArray, cfa = self.cfa, focal = focalLengthSensorPixels, cache = objectPlanes
        let empty = ScenePlanes(kind: kind, size: size, values: [])
        return PlaneSource(ready: empty, draw: {
            cache.planes(for: key) {
                var planes = Self.drawObjectScene(pixelArray: pixelArray, crop: crop, size: size, kind: kind, cfa: cfa,
                                                  focalLengthSensorPixels: focal, pose: key.pose, rotationDegrees: key.rotationDegrees,
                                                  coarse: key.coarse)
                let extent = Double(key.blurSteps) * Self.blurStepPixels
                if key.blurSteps > 0 { planes.blur(horizontalPixels: extent, verticalPixels: extent) }
                return planes
            }
        })
    }

    /// The widest grid a streaming frame of the object scene is ray cast on.
    static let streamingDrawWidth = 384

    /// The scene's planes: linear camera channels (`SimulatedColourResponse.sensorFromSRGB` of the
    /// surfaces' linear sRGB), three planes or a mosaic of the `cfa` channels. `coarse` 1: one ray
    /// through each pixel's centre; above 1, one per block of `coarse` × `coarse` pixels (a streaming frame).
    static func drawObjectScene(pixelArray: PixelSize, crop: PixelRect, size: PixelSize, kind: ScenePlanes.Kind, cfa: [Int],
                                focalLengthSensorPixels f: Double, pose: SimulatedPose, rotationDegrees: Double,
                                coarse: Int = 1) -> ScenePlanes {
        let w = size.width, h = size.height, n = w * h
        let planes = kind == .rgb ? 3 : 1
        let m = SimulatedColourResponse.sensorFromSRGB.map(Float.init)
        let rows = (0..<3).map { SIMD3(m[$0 * 3], m[$0 * 3 + 1], m[$0 * 3 + 2]) }
        let camera = ObjectSceneCamera(pixelArray: pixelArray, crop: crop, size: size, focalLengthSensorPixels: f, pose: pose)
        let origin = pose.positionMetres
        let radians = rotationDegrees * .pi / 180
        let turn = (cos: cos(radians), sin: sin(radians))
        let textures = ObjectScene.textures
        var values = [Float](repeating: 0, count: n * planes + 8)  // padded: see FramePasses
        values.withUnsafeMutableBufferPointer { out in
            guard let base = out.baseAddress else { return }
            RowBands.run(rows: h) { band in
                var block: [SIMD3<Float>] = []
                for j in band {
                    if coarse > 1, j == band.lowerBound || j % coarse == 0 {
                        // One ray at the middle of each block, for this band of rows.
                        let y = Double(j - j % coarse) + Double(coarse) / 2
                        block = stride(from: 0, to: w, by: coarse).map { i in
                            ObjectScene.trace(origin: origin, direction: camera.ray(x: Double(i) + Double(coarse) / 2, y: y),
                                              turn: turn, textures: textures).colour
                        }
                    }
                    for i in 0..<w {
                        // One ray through the pixel's centre (the textures are filtered bilinearly).
                        let rgb = coarse > 1 ? block[i / coarse]
                            : ObjectScene.trace(origin: origin, direction: camera.ray(x: Double(i) + 0.5, y: Double(j) + 0.5),
                                                turn: turn, textures: textures).colour
                        let p = j * w + i
                        if kind == .rgb {
                            for c in 0..<3 { base[c * n + p] = (rows[c] * rgb).sum() }
                        } else {
                            base[p] = (rows[cfa[(j & 1) * 2 + (i & 1)]] * rgb).sum()
                        }
                    }
                }
            }
        }
        return ScenePlanes(kind: kind, size: size, values: values)
    }
}

/// The pinhole one stream sees: output pixel (x right, y down, from the top left corner of the
/// frame, pixel centres at .5) → sensor pixel in `crop` → normalised image point (the principal
/// point is the pixel array's centre) → a ray in the world (not of unit length: its component
/// along the optical axis is 1).
struct ObjectSceneCamera {
    let pixelArray: PixelSize
    let crop: PixelRect
    let size: PixelSize
    let focalLengthSensorPixels: Double
    let pose: SimulatedPose
    private let axes: (right: SIMD3<Double>, down: SIMD3<Double>, forward: SIMD3<Double>)
    /// Sensor pixels per output pixel, across and down (worked out once, not per ray).
    private let scaleX: Double, scaleY: Double

    init(pixelArray: PixelSize, crop: PixelRect, size: PixelSize, focalLengthSensorPixels: Double, pose: SimulatedPose) {
        self.pixelArray = pixelArray; self.crop = crop; self.size = size
        self.focalLengthSensorPixels = focalLengthSensorPixels; self.pose = pose
        axes = pose.axes
        scaleX = Double(crop.width) / Double(max(size.width, 1))
        scaleY = Double(crop.height) / Double(max(size.height, 1))
    }

    func ray(x: Double, y: Double) -> SIMD3<Double> {
        let u = (Double(crop.x) + x * scaleX - Double(pixelArray.width) / 2) / focalLengthSensorPixels
        let v = (Double(crop.y) + y * scaleY - Double(pixelArray.height) / 2) / focalLengthSensorPixels
        return axes.right * u + axes.down * v + axes.forward
    }
}

/// One renderer's last object-scene drawings, by what they show (the sensor's pixel array, focal
/// length and colour filter are the renderer's); frames are drawn on any thread.
final class ObjectPlaneCache: @unchecked Sendable {
    struct Key: Hashable {
        var crop: PixelRect
        var size: PixelSize
        var kind: ScenePlanes.Kind
        var pose: SimulatedPose
        var rotationDegrees: Double
        var blurSteps: Int
        var coarse: Int
    }

    /// Drawings kept, oldest dropped first.
    static let limit = 4
    private let lock = NSLock()
    private var kept: [(key: Key, planes: ScenePlanes)] = []

    /// The planes for `key`: kept ones, or drawn now (outside the lock) and kept.
    func planes(for key: Key, draw: () -> ScenePlanes) -> ScenePlanes {
        if let found = lock.withLock({ kept.first { $0.key == key }?.planes }) { return found }
        let planes = draw()
        lock.withLock {
            kept.removeAll { $0.key == key }
            kept.append((key, planes))
            if kept.count > Self.limit { kept.removeFirst() }
        }
        return planes
    }
}

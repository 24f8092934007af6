import Foundation
import Hardware

/// Draws the small synthetic frames of the simulated camera.
///
/// A frame is the scene's chart over the active crop, exposed at grey level
/// L·t·S/(K·N²)·0.18 (linear, clipped at white), seen through the sensor's colour response under the
/// scene light, blurred by defocus (blur circle f²/N·|lens − subject|) plus the image motion during the
/// exposure (as separable box blurs), with shot and read noise that grow with gain, then multiplied by
/// the white-balance gains. Frames are rendered at a reduced size (≤ 96×54); `FrameBuffer.size` is
/// the rendered size.
public struct SimulatedFrameRenderer: Sendable {
    /// The default largest rendered size.
    public static let defaultMaximumSize = PixelSize(width: 96, height: 54)
    /// Full-well capacity and read noise in electrons at unit gain, for the noise model.
    static let fullWellElectrons = 10_000.0
    static let readNoiseElectrons = 3.0

    let sensor: SensorDescription

    /// The size a stream of `size` is rendered at: divided by a whole factor to fit `maximum`, even.
    static func renderSize(for size: PixelSize, maximum: PixelSize = defaultMaximumSize) -> PixelSize {
        let factor = max(1, Int((max(Double(size.width) / Double(max(maximum.width, 2)),
                                     Double(size.height) / Double(max(maximum.height, 2)))).rounded(.up)))
        return PixelSize(width: max(2, size.width / factor & ~1), height: max(2, size.height / factor & ~1))
    }

    /// Focal length in rendered pixels when `crop` (sensor pixels) spans `renderWidth` pixels.
    func focalLengthPixels(crop: PixelRect, renderWidth: Int) -> Double {
        let f = (sensor.lens?.focalLengthMillimetres ?? 4) / 1000
        let pixel = (sensor.pixelSizeMicrometres ?? 1.4) / 1e6
        return f / (pixel * Double(crop.width) / Double(renderWidth))
    }

    /// Linear raw planes, flat (R plane, then G, then B; 0…1 before clipping) for one frame.
    /// The chart's reflectance at each rendered pixel (point-sampled over `crop`); callers cache it.
    func reflectanceMap(size: PixelSize, crop: PixelRect, scene: SimulatedScene) -> [Double] {
        var map = [Double](repeating: 0, count: size.area)
        for j in 0..<size.height {
            let y = Double(crop.y) + (Double(j) + 0.5) * Double(crop.height) / Double(size.height)
            for i in 0..<size.width {
                let x = Double(crop.x) + (Double(i) + 0.5) * Double(crop.width) / Double(size.width)
                map[j * size.width + i] = scene.reflectance(x: x, y: y, pixelArray: sensor.pixelArray)
            }
        }
        return map
    }

    /// Linear raw planes, flat (R plane, then G, then B; 0…1 before clipping) for one frame.
    func rawPlanes(size: PixelSize, crop: PixelRect, reflectance: [Double], scene: SimulatedScene,
                   frame: SimulatedFrameParameters, defocusPixels: Double, motionRadians: (x: Double, y: Double),
                   rng: inout SeededGenerator) -> [Double] {
        let w = size.width, h = size.height, n = w * h
        let iso = sensor.isoPerGain * frame.analogueGain
        let grey = scene.greyLevel(exposureMicroseconds: Double(frame.exposureMicroseconds), iso: iso,
                                   fNumber: sensor.lens?.fNumber ?? 2.8)
        let level = grey / 0.18
        var luma = reflectance
        luma.withUnsafeMutableBufferPointer { out in
            for p in 0..<n { out[p] *= level }
        }
        let scale = Double(crop.width) / Double(w)  // sensor pixels per rendered pixel
        let f = focalLengthPixels(crop: crop, renderWidth: w)
        // Rotation about y moves the image sideways, about x up and down.
        boxBlur(&luma, width: w, height: h, horizontal: true, extent: defocusPixels / scale + abs(motionRadians.y) * f)
        boxBlur(&luma, width: w, height: h, horizontal: false, extent: defocusPixels / scale + abs(motionRadians.x) * f)
        let white = SimulatedColourResponse(sensor.colourCalibration).whiteGains(kelvin: scene.illuminantKelvin)
        let response = (1 / white.red, 1.0, 1 / white.blue)
        let g = frame.analogueGain
        let electronsPerUnit = Self.fullWellElectrons / g
        let read2 = Self.readNoiseElectrons * Self.readNoiseElectrons
        let sigmaScale = g / Self.fullWellElectrons
        var planes = [Double](repeating: 0, count: 3 * n)
        planes.withUnsafeMutableBufferPointer { out in
            luma.withUnsafeBufferPointer { l in
                for c in 0..<3 {
                    let k = c == 0 ? response.0 : c == 1 ? response.1 : response.2
                    for p in 0..<n {
                        let signal = min(l[p] * k, 4)
                        let sigma = (max(signal, 0) * electronsPerUnit + read2).squareRoot() * sigmaScale
                        out[c * n + p] = signal + sigma * rng.noise()
                    }
                }
            }
        }
        return planes
    }

    /// A processed frame (BGR888 = memory R, G, B; XRGB8888 = memory B, G, R, 255), linear, 8-bit.
    func processed(_ planes: [Double], size: PixelSize, format: PixelFormat, frame: SimulatedFrameParameters) -> FrameBuffer {
        let bpp = format == .xrgb8888 ? 4 : 3
        let n = size.area
        var bytes = [UInt8](repeating: 255, count: n * bpp)
        let gains = (frame.redGain * frame.digitalGain, frame.digitalGain, frame.blueGain * frame.digitalGain)
        // Byte slot of each channel within a pixel.
        let slots = format == .xrgb8888 ? (2, 1, 0) : (0, 1, 2)
        bytes.withUnsafeMutableBufferPointer { out in
            planes.withUnsafeBufferPointer { src in
                for c in 0..<3 {
                    let gain = c == 0 ? gains.0 : c == 1 ? gains.1 : gains.2
                    let slot = c == 0 ? slots.0 : c == 1 ? slots.1 : slots.2
                    for p in 0..<n {
                        let v = min(max(src[c * n + p] * gain, 0), 1)
                        out[p * bpp + slot] = UInt8(v * 255 + 0.5)
                    }
                }
            }
        }
        return FrameBuffer(pixelFormat: format, size: size, stride: size.width * bpp, bytes: bytes)
    }

    /// A raw Bayer frame in the sensor's CFA order, `bitDepth` bits in little-endian 16-bit words,
    /// black level included, clipped at white.
    func raw(_ planes: [Double], size: PixelSize, format: PixelFormat, bitDepth: Int) -> FrameBuffer {
        let order = Array((sensor.bayerOrder ?? "RGGB").uppercased().utf8)
        let channelAt = order.map { $0 == UInt8(ascii: "R") ? 0 : $0 == UInt8(ascii: "B") ? 2 : 1 }
        let white = Double((1 << bitDepth) - 1)
        let black = Double((sensor.blackLevel16 ?? 0) >> (16 - bitDepth))
        let n = size.area
        var bytes = [UInt8](repeating: 0, count: n * 2)
        bytes.withUnsafeMutableBufferPointer { out in
            planes.withUnsafeBufferPointer { src in
                for j in 0..<size.height {
                    for i in 0..<size.width {
                        let p = j * size.width + i
                        let v = min(max(src[channelAt[(j & 1) * 2 + (i & 1)] * n + p], 0), 1)
                        let code = UInt16(min(black + v * (white - black), white) + 0.5)
                        out[p * 2] = UInt8(code & 0xFF)
                        out[p * 2 + 1] = UInt8(code >> 8)
                    }
                }
            }
        }
        return FrameBuffer(pixelFormat: format, size: size, stride: size.width * 2, bytes: bytes)
    }

    /// A box blur of fractional width `extent` pixels along one axis (edge pixels repeated).
    private func boxBlur(_ image: inout [Double], width: Int, height: Int, horizontal: Bool, extent: Double) {
        guard extent > 0.05 else { return }
        let half = extent / 2
        let reach = Int(half.rounded(.up))
        var weights: [Double] = (-reach...reach).map { k in
            let d = Double(abs(k))
            return min(max(half + 0.5 - d, 0), 1)
        }
        let total = weights.reduce(0, +)
        weights = weights.map { $0 / total }
        let source = image
        let lines = horizontal ? height : width, length = horizontal ? width : height
        let step = horizontal ? 1 : width, lineStep = horizontal ? width : 1
        image.withUnsafeMutableBufferPointer { out in
            source.withUnsafeBufferPointer { src in
                weights.withUnsafeBufferPointer { kernel in
                    for line in 0..<lines {
                        let base = line * lineStep
                        for a in 0..<length {
                            var sum = 0.0
                            for n in 0..<kernel.count {
                                let b = min(max(a + n - reach, 0), length - 1)
                                sum += kernel[n] * src[base + b * step]
                            }
                            out[base + a * step] = sum
                        }
                    }
                }
            }
        }
    }
}

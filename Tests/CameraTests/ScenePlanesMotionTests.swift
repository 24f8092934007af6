import Hardware
import Testing
@testable import SimulatedHardware

/// Random planes of `kind` at w × h (plus the 8 spare values).
private func randomPlanes(_ kind: ScenePlanes.Kind, _ w: Int, _ h: Int, _ rng: inout SeededGenerator) -> ScenePlanes {
    let n = w * h * (kind == .rgb ? 3 : 1) + 8
    return ScenePlanes(kind: kind, size: PixelSize(width: w, height: h), values: (0..<n).map { _ in Float(rng.unit()) })
}

@Test func skewWithTranslationIsTranslateThenSkewInOnePass() {
    var rng = SeededGenerator(seed: 3)
    for kind in [ScenePlanes.Kind.rgb, .mosaic] {
        for (w, h) in [(64, 36), (37, 21), (8, 6)] {
            let base = randomPlanes(kind, w, h, &rng)
            for _ in 0..<40 {
                let dx = Double(Int(rng.next() % 200)) - 100, dy = Double(Int(rng.next() % 120)) - 60
                let sx = Double(Int(rng.next() % 40)) - 20, sy = Double(Int(rng.next() % 20)) - 10
                func horizontal(_ j: Int) -> Double { sx * (Double(j) / Double(h - 1) - 0.5) }
                func vertical(_ j: Int) -> Double { sy * (Double(j) / Double(h - 1) - 0.5) }
                var twoPasses = base, onePass = base
                var first: [Float] = [], second: [Float] = [], third: [Float] = []
                _ = twoPasses.translate(dx: dx, dy: dy, using: &first)
                _ = twoPasses.skew(horizontal: horizontal, vertical: vertical, using: &second)
                _ = onePass.skew(horizontal: horizontal, vertical: vertical, translatedBy: (dx, dy), using: &third)
                #expect(twoPasses.values == onePass.values, "\(kind) \(w)x\(h) move \(dx), \(dy) skew \(sx), \(sy)")
            }
        }
    }
}

@Test func motionBlurIntoStorageMatchesTheGeneralBlur() {
    var rng = SeededGenerator(seed: 4)
    for kind in [ScenePlanes.Kind.rgb, .mosaic] {
        for (w, h) in [(64, 36), (37, 21)] {
            let base = randomPlanes(kind, w, h, &rng)
            for (across, down) in [(0.3, 0.0), (1.0, 0.0), (0.0, 2.5), (3.7, 1.2), (9.0, 33.0), (40.0, 5.0)] {
                var general = base, motion = base, storage: [Float] = []
                general.blur(horizontalPixels: across, verticalPixels: down)
                let changed = motion.blur(horizontalPixels: across, verticalPixels: down, using: &storage)
                #expect(changed == motion.blurs(horizontalPixels: across, verticalPixels: down))
                let worst = zip(general.values, motion.values).map { abs($0 - $1) }.max() ?? 0
                #expect(worst < 1e-5, "\(kind) \(w)x\(h) blur \(across), \(down): \(worst)")
            }
        }
    }
}

/// A stabilizer moves its ScalerCrop every frame. The renderer then draws the chart it sampled for
/// the first crop moved by the difference, instead of sampling the chart again: the picture must be
/// the one a fresh sample of the moved crop gives (away from the edges, where the move wraps round).
@Test func aMovedCropShowsTheChartMovedNotResampled() throws {
    let sensor = try sensor("imx708")
    let size = PixelSize(width: 320, height: 180)
    let first = PixelRect(x: 704, y: 396, width: 3200, height: 1800)  // 10 sensor pixels per output pixel
    let moved = PixelRect(x: first.x + 40, y: first.y - 30, width: first.width, height: first.height)  // 4 right, 3 up
    func request(_ crop: PixelRect) -> SimulatedFrameRenderer.Request {
        SimulatedFrameRenderer.Request(
            role: .viewfinder, format: .bgr888, size: size, streamSize: size, crop: crop, scene: SimulatedScene(),
            frame: SimulatedFrameParameters(exposureMicroseconds: 10_000, analogueGain: 1, digitalGain: 1, redGain: 2, blueGain: 1.8,
                                            colourTemperatureKelvin: 5000, lensPositionDioptres: 1, afState: 0,
                                            frameDurationMicroseconds: 33_333, aeLocked: false, focusFigureOfMerit: 0),
            defocusPixels: 0, motion: .init(), bitDepth: 10)
    }
    func bytes(_ frame: FrameBuffer) -> [UInt8] { frame.withUnsafeBytes { Array($0) } }
    let reusing = SimulatedFrameRenderer(sensor: sensor)
    _ = bytes(reusing.render(request(first), rng: SeededGenerator(seed: 1)))
    let reused = bytes(reusing.render(request(moved), rng: SeededGenerator(seed: 2)))
    let fresh = bytes(SimulatedFrameRenderer(sensor: sensor).render(request(moved), rng: SeededGenerator(seed: 2)))
    var differing = 0, compared = 0
    for y in 8..<(size.height - 8) {
        for x in 8..<(size.width - 8) {
            for c in 0..<3 {
                let i = (y * size.width + x) * 3 + c
                compared += 1
                if reused[i] != fresh[i] { differing += 1 }
            }
        }
    }
    #expect(differing == 0, "\(differing) of \(compared) interior values differ from a fresh sample of the moved crop")
    // And the move is real: the first crop's picture is not the moved one's.
    let unmoved = bytes(SimulatedFrameRenderer(sensor: sensor).render(request(first), rng: SeededGenerator(seed: 2)))
    #expect(unmoved != fresh)
}

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

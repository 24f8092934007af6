import Foundation

/// The test chart the simulated camera looks at, filling the full sensor's field of view.
///
/// Its light targets are mid-light (45 %), so a frame metered to 18 % clips little even one stop up.
/// Laid out in chart units (the chart is 16/9 wide and 1 high, matching the pixel array), on a
/// neutral board of reflectance `boardReflectance`:
/// - a 24-patch colour checker (6 × 4, X-Rite ColorChecker Classic reference L\*a\*b\* under D50)
///   on a black surround, top left;
/// - a slanted edge: a dark square turned 5° on a light field (4.9 : 1 contrast, ISO 12233 style),
///   top middle;
/// - a Siemens star of 36 cycles, top right;
/// - a light trap (0.4 % black velvet) and a specular highlight 100 times brighter than a white
///   diffuser, middle: 14.6 stops between them, more than the sensor's dynamic range;
/// - a grey ramp along the bottom: smooth from L\* 5 to 96 above 16 steps of the same range.
///
/// Colours are linear sRGB (D65-adapted) reflectances; `SimulatedColourResponse` turns them into
/// the sensor's channels under the scene light.
public enum TestChart {
    /// Width of the chart in chart units (its height is 1).
    static let aspect = 16.0 / 9.0
    /// Reflectance of the board around the targets (chosen so the whole chart averages 18 % grey).
    static let boardReflectance = 0.14
    /// Radiance of the specular highlight relative to a white diffuser under the same light.
    static let highlightRadiance = 100.0
    /// Reflectance of the light trap.
    static let lightTrapReflectance = 0.004

    // Layout, chart units.
    static let checkerOrigin = (x: 0.06, y: 0.06)
    static let patchSize = 0.13, patchGap = 0.02
    static let edgeCentre = (x: 1.16, y: 0.21), edgeHalfSide = 0.09, edgeField = 0.14
    static let edgeAngleRadians = 5.0 * .pi / 180
    static let edgeLight = 0.45, edgeDark = 0.092
    static let starCentre = (x: 1.52, y: 0.22), starRadius = 0.17, starCycles = 36.0
    static let trapCentre = (x: 1.16, y: 0.52), trapRadius = 0.05
    static let highlightCentre = (x: 1.52, y: 0.52), highlightRadius = 0.012
    static let rampTop = 0.76, rampMiddle = 0.83, rampBottom = 0.90, rampLeft = 0.06, rampRight = aspect - 0.06
    static let rampSteps = 16

    /// X-Rite ColorChecker Classic reference values, L\*a\*b\* (D50), patches 1 to 24 in reading
    /// order (dark skin … black), as published by X-Rite for charts made after November 2014.
    static let checkerLab: [(l: Double, a: Double, b: Double)] = [
        (37.54, 14.37, 14.92), (64.66, 19.27, 17.50), (49.32, -3.82, -22.54), (43.46, -12.74, 22.72),
        (54.94, 9.61, -24.79), (70.48, -32.26, -0.37), (62.73, 35.83, 56.50), (39.43, 10.75, -45.17),
        (50.57, 48.64, 16.67), (30.10, 22.54, -20.87), (71.77, -24.13, 58.19), (71.51, 18.24, 67.37),
        (28.37, 15.42, -49.80), (54.38, -39.72, 32.27), (42.43, 51.05, 28.62), (81.80, 2.67, 80.41),
        (50.63, 51.28, -14.12), (49.57, -29.71, -28.32), (95.19, -1.03, 2.93), (81.29, -0.57, 0.44),
        (66.89, -0.75, -0.06), (50.76, -0.13, 0.14), (35.63, -0.46, -0.48), (20.64, 0.07, -0.46),
    ]

    /// The patches as linear sRGB reflectances: L\*a\*b\* (D50) → XYZ → Bradford D50→D65 → sRGB.
    static let checkerRGB: [SIMD3<Double>] = checkerLab.map { linearSRGB(lab: $0) }

    /// Linear sRGB (D65) of a L\*a\*b\* colour given relative to D50 (CIE 15; Bradford adaptation).
    static func linearSRGB(lab: (l: Double, a: Double, b: Double)) -> SIMD3<Double> {
        func f(_ t: Double) -> Double { t > 6.0 / 29 ? t * t * t : 3 * (6.0 / 29) * (6.0 / 29) * (t - 4.0 / 29) }
        let fy = (lab.l + 16) / 116
        let xyz = SIMD3(0.9642 * f(fy + lab.a / 500), f(fy), 0.8251 * f(fy - lab.b / 200))
        let bradford: [SIMD3<Double>] = [SIMD3(0.9555766, -0.0230393, 0.0631636), SIMD3(-0.0282895, 1.0099416, 0.0210077),
                                         SIMD3(0.0122982, -0.0204830, 1.3299098)]
        let d65 = SIMD3(bradford.map { ($0 * xyz).sum() })
        let toSRGB: [SIMD3<Double>] = [SIMD3(3.2404542, -1.5371385, -0.4985314), SIMD3(-0.9692660, 1.8760108, 0.0415560),
                                       SIMD3(0.0556434, -0.2040259, 1.0572252)]
        return SIMD3(toSRGB.map { ($0 * d65).sum() })
    }

    /// Relative luminance of a grey of lightness L\*.
    static func greyReflectance(lightness: Double) -> Double {
        let fy = (lightness + 16) / 116
        return fy > 6.0 / 29 ? fy * fy * fy : 3 * (6.0 / 29) * (6.0 / 29) * (fy - 4.0 / 29)
    }

    /// The centre of checker patch `index` (0…23), chart units.
    static func patchCentre(_ index: Int) -> (x: Double, y: Double) {
        let pitch = patchSize + patchGap
        return (checkerOrigin.x + Double(index % 6) * pitch + patchSize / 2,
                checkerOrigin.y + Double(index / 6) * pitch + patchSize / 2)
    }

    /// How the chart is lit. `backlit` is a high-contrast scene for video HDR: right of
    /// `windowLeft` the chart is a window `windowRadiance` times as bright as a white diffuser
    /// (clipped by a plain exposure metered for the grey, within HDR's range), and left of
    /// `shadowRight` it lies in a shadow of `shadowFactor` of the light (crushed to black in 8 bits).
    /// About a third of the frame each, and a quarter each of the 120 fps modes' centre crop.
    public enum Lighting: String, Hashable, Sendable, CaseIterable {
        case even, backlit
    }
    static let windowRadiance = 3.0, shadowFactor = 0.01, windowLeft = 1.2, shadowRight = 0.55

    /// Linear sRGB radiance at a chart point under `lighting`, relative to a white diffuser.
    static func colour(x: Double, y: Double, lighting: Lighting) -> SIMD3<Double> {
        guard lighting == .backlit else { return colour(x: x, y: y) }
        if x >= windowLeft { return SIMD3(repeating: windowRadiance) }
        return x < shadowRight ? colour(x: x, y: y) * shadowFactor : colour(x: x, y: y)
    }

    /// Linear sRGB radiance at a chart point, relative to a white diffuser (highlight above 1).
    static func colour(x: Double, y: Double) -> SIMD3<Double> {
        let pitch = patchSize + patchGap
        let cx = x - checkerOrigin.x, cy = y - checkerOrigin.y
        if cx >= -patchGap, cy >= -patchGap, cx < 6 * pitch, cy < 4 * pitch {
            let column = Int((cx / pitch).rounded(.down)), row = Int((cy / pitch).rounded(.down))
            let inside = column >= 0 && row >= 0 && column < 6 && row < 4
                && cx - Double(column) * pitch < patchSize && cy - Double(row) * pitch < patchSize
            return inside ? checkerRGB[row * 6 + column] : SIMD3(repeating: 0.031)
        }
        return SIMD3(repeating: grey(x: x, y: y))
    }

    /// The neutral targets: board, slanted edge, star, light trap, highlight, ramp.
    private static func grey(x: Double, y: Double) -> Double {
        let ex = x - edgeCentre.x, ey = y - edgeCentre.y
        if abs(ex) < edgeField, abs(ey) < edgeField {
            let c = cos(edgeAngleRadians), s = sin(edgeAngleRadians)
            let u = c * ex + s * ey, v = -s * ex + c * ey
            return abs(u) < edgeHalfSide && abs(v) < edgeHalfSide ? edgeDark : edgeLight
        }
        let sx = x - starCentre.x, sy = y - starCentre.y
        let starR2 = sx * sx + sy * sy
        if starR2 < starRadius * starRadius {
            let phase = (atan2(sy, sx) / (2 * .pi) + 0.5) * starCycles
            return phase - phase.rounded(.down) < 0.5 ? 0.022 : 0.45
        }
        let tx = x - trapCentre.x, ty = y - trapCentre.y
        if tx * tx + ty * ty < trapRadius * trapRadius { return lightTrapReflectance }
        let hx = x - highlightCentre.x, hy = y - highlightCentre.y
        let h2 = hx * hx + hy * hy
        if h2 < 9 * highlightRadius * highlightRadius {
            // A hot core with a soft glow falling off with distance (a lamp seen through a diffuser).
            let r = h2.squareRoot() / highlightRadius
            return r < 1 ? highlightRadiance : boardReflectance + highlightRadiance * 0.02 / (r * r * r * r)
        }
        if y >= rampTop, y < rampBottom, x >= rampLeft, x < rampRight {
            var t = (x - rampLeft) / (rampRight - rampLeft)
            if y >= rampMiddle { t = (t * Double(rampSteps)).rounded(.down) / Double(rampSteps - 1) }
            return greyReflectance(lightness: 5 + 91 * min(t, 1))
        }
        return boardReflectance
    }
}

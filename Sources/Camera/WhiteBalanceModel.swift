import Foundation
import Hardware

/// Red and blue white-balance gains relative to green (libcamera's ColourGains).
public struct WhiteBalanceGains: Hashable, Sendable, Codable {
    public var red: Double
    public var blue: Double
    public init(red: Double, blue: Double) { self.red = red; self.blue = blue }
}

/// A light described by correlated colour temperature and tint.
///
/// Tint is the shift off the white-point curve along the green–magenta axis: positive tint raises
/// both red and blue gains relative to green (the picture turns more magenta, compensating a green
/// light), like the Tint slider of raw editors. ±150 is a factor of 1.5 on both gains.
public struct TemperatureAndTint: Hashable, Sendable, Codable {
    public var temperatureKelvin: Double
    public var tint: Double
    public init(temperatureKelvin: Double, tint: Double = 0) { self.temperatureKelvin = temperatureKelvin; self.tint = tint }
}

/// Converts between temperature+tint and gains (see docs/white-balance.md).
///
/// The white-point curve is the sensor's colour calibration (ct_curve points: log gains,
/// interpolated linearly in mired, extended linearly beyond the ends), or, for a sensor without
/// one, a generic Planckian curve: the blackbody chromaticity (Kim et al. cubic fit) converted to
/// linear sRGB, whose gains G/R and G/B assume a camera that sees like sRGB.
public struct WhiteBalanceModel: Sendable {
    /// Natural-log change of both gains per unit of tint: ln(1.5)/150.
    public static let tintLogScale = log(1.5) / 150
    /// Temperatures searched when converting gains back, kelvin.
    public static let temperatureRange = 1500.0...20000.0

    private let curve: [(mired: Double, logRed: Double, logBlue: Double)]
    /// True when the sensor's calibration is used, false for the generic Planckian model.
    public let usesCalibration: Bool

    public init(calibration: [SensorDescription.ColourPoint]?) {
        let points = (calibration ?? []).filter { $0.temperatureKelvin > 0 && $0.redGain > 0 && $0.blueGain > 0 }
        if points.count >= 2 {
            usesCalibration = true
            curve = points.map { (1e6 / $0.temperatureKelvin, log($0.redGain), log($0.blueGain)) }.sorted { $0.0 < $1.0 }
        } else {
            usesCalibration = false
            curve = stride(from: 1500.0, through: 20000, by: 250).map { t in
                let g = Self.planckianGains(kelvin: t)
                return (1e6 / t, log(g.red), log(g.blue))
            }.sorted { $0.0 < $1.0 }
        }
    }

    /// The gains that neutralise a light of `light`'s temperature and tint.
    public func gains(for light: TemperatureAndTint) -> WhiteBalanceGains {
        let (r, b) = locus(mired: 1e6 / light.temperatureKelvin)
        let shift = light.tint * Self.tintLogScale
        return WhiteBalanceGains(red: exp(r + shift), blue: exp(b + shift))
    }

    /// The temperature and tint whose gains are `gains`: temperature from the red/blue balance
    /// (which tint does not change), tint from the remaining common shift.
    public func temperatureAndTint(for gains: WhiteBalanceGains) -> TemperatureAndTint {
        let x = log(max(gains.red, 1e-9)), y = log(max(gains.blue, 1e-9))
        var lo = 1e6 / Self.temperatureRange.upperBound, hi = 1e6 / Self.temperatureRange.lowerBound
        for _ in 0..<80 {
            let mid = (lo + hi) / 2
            let (r, b) = locus(mired: mid)
            // Warmer light (higher mired) needs less red and more blue gain: r − b falls.
            if r - b > x - y { lo = mid } else { hi = mid }
        }
        let mired = (lo + hi) / 2
        let (r, b) = locus(mired: mired)
        return TemperatureAndTint(temperatureKelvin: 1e6 / mired, tint: ((x - r) + (y - b)) / 2 / Self.tintLogScale)
    }

    /// Log gains on the white-point curve at `mired`, linear between points and beyond the ends.
    private func locus(mired: Double) -> (Double, Double) {
        var i = 0
        while i < curve.count - 2, mired > curve[i + 1].mired { i += 1 }
        let a = curve[i], b = curve[i + 1]
        let t = (mired - a.mired) / (b.mired - a.mired)
        return (a.logRed + t * (b.logRed - a.logRed), a.logBlue + t * (b.logBlue - a.logBlue))
    }

    /// Gains that neutralise a blackbody at `kelvin` for an sRGB-like camera.
    static func planckianGains(kelvin: Double) -> WhiteBalanceGains {
        let t = min(max(kelvin, 1667), 25000)
        // Kim et al. (2002) cubic fit of the Planckian locus in CIE 1931 xy.
        let x = t <= 4000
            ? -0.2661239e9 / (t * t * t) - 0.2343589e6 / (t * t) + 0.8776956e3 / t + 0.179910
            : -3.0258469e9 / (t * t * t) + 2.1070379e6 / (t * t) + 0.2226347e3 / t + 0.240390
        let y: Double
        if t <= 2222 { y = -1.1063814 * x * x * x - 1.34811020 * x * x + 2.18555832 * x - 0.20219683 }
        else if t <= 4000 { y = -0.9549476 * x * x * x - 1.37418593 * x * x + 2.09137015 * x - 0.16748867 }
        else { y = 3.0817580 * x * x * x - 5.87338670 * x * x + 3.75112997 * x - 0.37001483 }
        let bigX = x / y, bigZ = (1 - x - y) / y
        let r = 3.2406 * bigX - 1.5372 - 0.4986 * bigZ
        let g = -0.9689 * bigX + 1.8758 + 0.0415 * bigZ
        let b = 0.0557 * bigX - 0.2040 + 1.0570 * bigZ
        return WhiteBalanceGains(red: g / max(r, 1e-6), blue: g / max(b, 1e-6))
    }
}

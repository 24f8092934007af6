import Foundation
import Hardware

/// What the simulated camera looks at: a flat, neutral test chart at a known distance under a
/// light of known brightness and colour temperature.
///
/// The chart is a grey checkerboard (reflectances 0.06 and 0.30, mean 0.18) with a white patch
/// (0.90) in its top-left eighth, laid over the sensor's pixel array (cells of 1/48 of its width).
/// Being neutral, gray-world white balance on it is exact.
public struct SimulatedScene: Hashable, Sendable {
    /// Luminance of an 18 % grey card in the scene, cd/m².
    public var greyLuminanceCandelasPerSquareMetre: Double
    /// Correlated colour temperature of the light, kelvin.
    public var illuminantKelvin: Double
    /// Distance from the lens to the chart, metres (focus target).
    public var subjectDistanceMetres: Double

    public init(greyLuminanceCandelasPerSquareMetre: Double = 40, illuminantKelvin: Double = 5000,
                subjectDistanceMetres: Double = 0.5) {
        self.greyLuminanceCandelasPerSquareMetre = greyLuminanceCandelasPerSquareMetre
        self.illuminantKelvin = illuminantKelvin
        self.subjectDistanceMetres = subjectDistanceMetres
    }

    /// Subject distance as lens power, dioptres (libcamera's LensPosition unit).
    public var subjectDioptres: Double { 1 / max(subjectDistanceMetres, 0.01) }

    /// Illuminance on the chart, lux, for the `Lux` metadata (Lambertian: E = π L / ρ).
    public var lux: Double { Double.pi * greyLuminanceCandelasPerSquareMetre / 0.18 }

    /// Reflectance at a point of the pixel array (sensor pixel coordinates).
    func reflectance(x: Double, y: Double, pixelArray: PixelSize) -> Double {
        let w = Double(pixelArray.width), h = Double(pixelArray.height)
        if x < w / 8, y < h / 8 { return 0.90 }
        let cell = w / 48
        let cx = Int((x / cell).rounded(.down)), cy = Int((y / cell).rounded(.down))
        return (cx + cy) & 1 == 0 ? 0.06 : 0.30
    }

    /// Linear exposure of an 18 % grey (0…1, 1 = clip) at this exposure: the reflected-light meter
    /// equation L·t·S/N² = K (K = 12.5) puts a correctly exposed grey at 0.18.
    func greyLevel(exposureMicroseconds: Double, iso: Double, fNumber: Double) -> Double {
        greyLuminanceCandelasPerSquareMetre * exposureMicroseconds / 1e6 * iso / (12.5 * fNumber * fNumber) * 0.18
    }

    /// The exposure product (µs × ISO) that puts the grey at 0.18, for the simulated AE.
    func correctExposureMicrosecondsISO(fNumber: Double) -> Double {
        12.5 * fNumber * fNumber / greyLuminanceCandelasPerSquareMetre * 1e6
    }
}

/// The sensor's white point by colour temperature, from its calibration points (linear in mired on
/// log gains), or a rough generic curve when it has none. The simulated sensor's own model,
/// independent of the Camera module's white-balance conversions.
struct SimulatedColourResponse: Sendable {
    private let points: [(mired: Double, logRed: Double, logBlue: Double)]

    init(_ calibration: [SensorDescription.ColourPoint]?) {
        let given = (calibration ?? []).map { (1e6 / $0.temperatureKelvin, log($0.redGain), log($0.blueGain)) }
        points = given.count >= 2 ? given.sorted { $0.0 < $1.0 }
            : [(1e6 / 2500, log(1.2), log(3.2)), (1e6 / 6500, log(2.1), log(1.6)), (1e6 / 10000, log(2.5), log(1.3))]
    }

    /// The red and blue gains that make a grey neutral under light of `kelvin`.
    func whiteGains(kelvin: Double) -> (red: Double, blue: Double) {
        let m = 1e6 / kelvin
        var i = 0
        while i < points.count - 2, m > points[i + 1].mired { i += 1 }
        let a = points[i], b = points[i + 1]
        let t = (m - a.mired) / (b.mired - a.mired)
        return (exp(a.logRed + t * (b.logRed - a.logRed)), exp(a.logBlue + t * (b.logBlue - a.logBlue)))
    }

    /// The colour temperature whose white point best matches gains (by the red/blue balance).
    func temperature(red: Double, blue: Double) -> Double {
        let target = log(red) - log(blue)
        var lo = 1e6 / 20000, hi = 1e6 / 1500  // mired
        for _ in 0..<60 {
            let mid = (lo + hi) / 2
            let g = whiteGains(kelvin: 1e6 / mid)
            // Higher mired (warmer) means lower red gain and higher blue gain.
            if log(g.red) - log(g.blue) > target { lo = mid } else { hi = mid }
        }
        return 1e6 / ((lo + hi) / 2)
    }
}

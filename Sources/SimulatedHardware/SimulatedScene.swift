import Foundation
import Hardware

/// What the simulated camera looks at: the test chart (`TestChart`) filling the full sensor's
/// field of view at a known distance, under a light of known brightness and colour temperature.
///
/// By default the chart is 0.5 m away (about 68 × 38 cm through the IMX708's 4.74 mm lens) and lit
/// at 5000 K so that an 18 % grey reads 40 cd/m² (about 700 lux).
public struct SimulatedScene: Hashable, Sendable {
    /// Luminance of an 18 % grey card in the scene, cd/m².
    public var greyLuminanceCandelasPerSquareMetre: Double
    /// Correlated colour temperature of the light, kelvin.
    public var illuminantKelvin: Double
    /// Distance from the lens to what it focuses on, metres: the chart (`chartDistanceMetres`), or
    /// in the object scene the point the rig looks at (`pose`). Setting it moves the chart.
    public var subjectDistanceMetres: Double {
        get { object == nil ? chartDistanceMetres : objectSubjectDistanceMetres }
        set { chartDistanceMetres = newValue }
    }
    /// Distance from the lens to the chart, metres; kept while the object scene is shown.
    public var chartDistanceMetres: Double
    /// How the chart is lit (`TestChart.Lighting`): evenly, or backlit (a high-contrast scene).
    public var lighting: TestChart.Lighting
    /// True for `sim scene depth`: the chart cut into upright strips, each at its own distance
    /// (`depthStripDistancesMetres`, left to right), so a focus stack has something to stack.
    public var hasDepth = false
    /// How the light changes with time (`sim light`): steady at day by default. Frames see the
    /// scene `lit(at:)` their start.
    public var light = SimulatedLight.steady()
    /// `sim object cross`: an object walking across the picture (SimulatedCrossingObject.swift), or none.
    public var crossing: SimulatedCrossingObject?
    /// `sim scene object`: the textured object on its turntable (`ObjectScene`) in place of the
    /// chart, seen through a true pinhole from `pose`; nil for the chart.
    public var object: ObjectScene?
    /// `sim pose`: where the rig stands in the object scene and what it looks at.
    public var pose = SimulatedPose.standard

    /// The strips' distances in `sim scene depth`, metres, left to right: 0.15 m to infinity.
    public static let depthStripDistancesMetres: [Double] = [0.15, 0.25, 0.4, 0.7, 1.5, .infinity]

    public init(greyLuminanceCandelasPerSquareMetre: Double = 40, illuminantKelvin: Double = 5000,
                subjectDistanceMetres: Double = 0.5, lighting: TestChart.Lighting = .even, hasDepth: Bool = false) {
        self.greyLuminanceCandelasPerSquareMetre = greyLuminanceCandelasPerSquareMetre
        self.illuminantKelvin = illuminantKelvin
        self.chartDistanceMetres = subjectDistanceMetres
        self.lighting = lighting
        self.hasDepth = hasDepth
    }

    /// The names `sim scene` takes: the lightings, `depth` (the evenly lit chart in strips) and
    /// `object` (`object spin DEG_PER_S` turns it).
    public static let names = TestChart.Lighting.allCases.map(\.rawValue) + ["depth", "object"]

    /// This scene as `sim scene WORDS` makes it: a name of `names`, or `object spin DEG_PER_S`.
    public func parsed(_ words: [String]) throws(HardwareError) -> SimulatedScene {
        if words.first == "object" {
            var spin = 0.0
            if words.count != 1 {
                guard words.count == 3, words[1] == "spin" else {
                    throw HardwareError(.invalidArgument, "scene \(words.joined(separator: " ")): write object, or object spin DEG_PER_S")
                }
                guard let value = Double(words[2]), value.isFinite, abs(value) <= ObjectScene.spinLimitDegreesPerSecond else {
                    throw HardwareError(.invalidArgument, "scene object spin \"\(words[2])\": degrees per second from -\(Int(ObjectScene.spinLimitDegreesPerSecond)) to \(Int(ObjectScene.spinLimitDegreesPerSecond))")
                }
                spin = value
            }
            var scene = self
            scene.object = ObjectScene(spinDegreesPerSecond: spin)
            scene.hasDepth = false  // the chart's strips: not drawn, and no defocus per strip to work out per frame
            return scene
        }
        guard words.count == 1, let scene = named(words[0]) else {
            throw HardwareError(.invalidArgument, "scene \(words.joined(separator: " ")): use \(Self.names.joined(separator: ", ")) or object spin DEG_PER_S")
        }
        return scene
    }

    /// This scene seen from `pose` (`sim pose`); in the object scene the focus target follows it.
    public func posed(_ pose: SimulatedPose) -> SimulatedScene {
        var scene = self
        scene.pose = pose
        return scene
    }

    /// The focus target in the object scene: the distance from the rig to the point it looks at.
    private var objectSubjectDistanceMetres: Double {
        let v = pose.lookAtMetres - pose.positionMetres
        return max((v * v).sum().squareRoot(), 0.05)
    }

    /// The scene's name as `sim scene` gives it.
    public var name: String {
        if let object { return object.spinDegreesPerSecond == 0 ? "object" : "object spin \(SimulatedPose.number(object.spinDegreesPerSecond))" }
        return hasDepth ? "depth" : lighting.rawValue
    }

    /// This scene as `sim scene NAME` makes it for a chart name of `names` (the chart again, in
    /// place of the object scene); nil for a name it does not know.
    private func named(_ name: String) -> SimulatedScene? {
        var scene = self
        scene.object = nil
        if name == "depth" {
            scene.lighting = .even
            scene.hasDepth = true
            return scene
        }
        guard let lighting = TestChart.Lighting(rawValue: name) else { return nil }
        scene.lighting = lighting
        scene.hasDepth = false
        return scene
    }

    /// Each strip's distance as lens power, dioptres (0 = infinity), left to right; nil when flat.
    public var depthStripDioptres: [Double]? {
        hasDepth ? Self.depthStripDistancesMetres.map { $0.isFinite ? 1 / $0 : 0 } : nil
    }

    /// Subject distance as lens power, dioptres (libcamera's LensPosition unit).
    public var subjectDioptres: Double { 1 / max(subjectDistanceMetres, 0.01) }

    /// Illuminance on the chart, lux, for the `Lux` metadata (Lambertian: E = π L / ρ).
    public var lux: Double { Double.pi * greyLuminanceCandelasPerSquareMetre / 0.18 }

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

/// The simulated sensor's colour: its white point by colour temperature, from its calibration
/// points (linear in mired on log gains) or a rough generic curve when it has none, and how its
/// three channels mix the scene's colours. The simulated sensor's own model, independent of the
/// Camera module's white-balance conversions.
///
/// Channel mixing: under any light, white-balanced camera RGB = `sensorFromSRGB` · linear sRGB of
/// the chart (the light's colour shows only as the white point: raw = balanced / white gains). The
/// matrix is a generic model of a CMOS sensor's overlapping dyes (not measured); its inverse is the
/// `colourCorrectionMatrix` the simulated ISP applies and reports, from which DNGs get ColorMatrix1.
struct SimulatedColourResponse: Sendable {
    private let points: [(mired: Double, logRed: Double, logBlue: Double)]

    /// White-balanced camera RGB from linear sRGB, row-major; rows sum to 1 (grey stays grey).
    static let sensorFromSRGB: [Double] = [0.660722, 0.218457, 0.120820,
                                           0.136870, 0.720018, 0.143112,
                                           0.064423, 0.257468, 0.678110]
    /// Linear sRGB from white-balanced camera RGB: the inverse of `sensorFromSRGB` (to 1e-5),
    /// libcamera's ColourCorrectionMatrix, row-major.
    static let colourCorrectionMatrix: [Double] = [1.62, -0.42, -0.20,
                                                   -0.30, 1.58, -0.28,
                                                   -0.04, -0.56, 1.60]

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

import Foundation
import Hardware

/// Depth of field of the stock lens, thin-lens and with the subject far compared with the focal
/// length: a point `ΔD` dioptres from the lens position blurs into a circle of diameter
/// b = f²/N · |ΔD| on the sensor. It counts as sharp while b is at most the circle of confusion c,
/// so the sharp zone spans ±c·N/f² dioptres around the lens position, 2·N·c/f² in all.
public struct FocusOptics: Hashable, Sendable {
    /// Focal length, millimetres.
    public var focalLengthMillimetres: Double
    /// Aperture, f-number.
    public var fNumber: Double
    /// Pixel pitch, micrometres.
    public var pixelSizeMicrometres: Double
    /// The circle of confusion, in pixels of the pixel array.
    public var circleOfConfusionPixels: Double

    /// The circle of confusion a focus bracket uses: two pixels.
    public static let defaultCircleOfConfusionPixels = 2.0
    /// How much of one frame's sharp zone the next frame's covers again (`auto` steps): a third,
    /// so the zones overlap and no depth falls between two frames.
    public static let autoStepOverlap = 1.0 / 3.0

    /// Optics from their parts.
    public init(focalLengthMillimetres: Double, fNumber: Double, pixelSizeMicrometres: Double,
                circleOfConfusionPixels: Double = defaultCircleOfConfusionPixels) {
        self.focalLengthMillimetres = focalLengthMillimetres; self.fNumber = fNumber
        self.pixelSizeMicrometres = pixelSizeMicrometres; self.circleOfConfusionPixels = circleOfConfusionPixels
    }

    /// The sensor description's lens and pixel pitch; nil when it lacks either.
    public init?(sensor: SensorDescription) {
        guard let lens = sensor.lens, let pitch = sensor.pixelSizeMicrometres, lens.focalLengthMillimetres > 0,
              lens.fNumber > 0, pitch > 0 else { return nil }
        self.init(focalLengthMillimetres: lens.focalLengthMillimetres, fNumber: lens.fNumber, pixelSizeMicrometres: pitch)
    }

    /// Blur circle diameter, pixels, of a point `defocusDioptres` from the lens position.
    public func blurPixels(defocusDioptres: Double) -> Double {
        let f = focalLengthMillimetres / 1000
        return f * f / fNumber * abs(defocusDioptres) / (pixelSizeMicrometres / 1e6)
    }

    /// Dioptres either side of the lens position that stay sharp: c·N/f².
    public var sharpHalfWidthDioptres: Double {
        let f = focalLengthMillimetres / 1000
        return circleOfConfusionPixels * pixelSizeMicrometres / 1e6 * fNumber / (f * f)
    }

    /// The whole depth of field, dioptres: 2·N·c/f² (0.45 D on the Camera Module 3).
    public var depthOfFieldDioptres: Double { 2 * sharpHalfWidthDioptres }

    /// The `auto` step: the depth of field less the overlap (0.30 D on the Camera Module 3).
    public var autoStepDioptres: Double { depthOfFieldDioptres * (1 - Self.autoStepOverlap) }

    /// The near and far limits of sharpness with the lens at `lensDioptres`, dioptres (far 0 is
    /// infinity: everything beyond is sharp too).
    public func sharpLimits(lensDioptres: Double) -> (nearDioptres: Double, farDioptres: Double) {
        (lensDioptres + sharpHalfWidthDioptres, max(lensDioptres - sharpHalfWidthDioptres, 0))
    }
}

/// What `bracket focus NEAR FAR [STEP] [ev ...]` asks for, before the camera is known.
public struct FocusBracketRequest: Hashable, Sendable {
    /// The nearer end, dioptres (the larger value: NEAR and FAR may come in either order).
    public var nearDioptres: Double
    /// The farther end, dioptres (0 = infinity).
    public var farDioptres: Double
    /// The step, dioptres; nil for `auto` (from the depth of field).
    public var stepDioptres: Double?
    /// The EV biases taken at each lens position ([0] without an EV bracket).
    public var evBiases: [Double]
    /// How the user wrote it ("0.2m 2m auto ev 3 1"), for the summary.
    public var text: String

    /// A request; the ends are sorted here.
    public init(_ a: Double, _ b: Double, stepDioptres: Double?, evBiases: [Double] = [0], text: String) {
        nearDioptres = max(a, b); farDioptres = min(a, b)
        self.stepDioptres = stepDioptres; self.evBiases = evBiases.isEmpty ? [0] : evBiases; self.text = text
    }
}

extension BracketPlan {
    /// The plan kind of focus brackets.
    public static let focusKind = "focus"

    /// A focus bracket: its steps are made when it starts (`resolvingFocus`), from the camera's lens.
    public static func focus(_ request: FocusBracketRequest) -> BracketPlan {
        var plan = BracketPlan(kind: focusKind, summary: "bracket focus " + request.text, steps: [])
        plan.focus = request
        return plan
    }

    /// The plan with a focus request's steps made for `camera`: lens positions from near to far,
    /// evenly spaced no wider than the step, each with the request's EV biases. Refused (in
    /// words) by a camera without a lens control, for ends outside the lens's range, a step finer
    /// than the lens resolves, or more frames than `maximumFrames` (saying how many it would take).
    /// A plan without a focus request comes back as it is.
    public func resolvingFocus(for camera: any BracketCamera, maximumFrames: Int) throws -> BracketPlan {
        guard let request = focus else { return self }
        let sensor = camera.sensor
        guard camera.afSystem != "none" else {
            throw CameraError(.unsupported, "bracket focus: \(sensor.model) (\(sensor.product)) has no lens control (fixed focus), so it cannot step its focus")
        }
        let range = camera.lensPositionRangeDioptres
        for end in [request.nearDioptres, request.farDioptres] where !range.contains(end) {
            throw CameraError(.outOfRange, "bracket focus: \(Self.lensText(end)) is outside the lens's range \(Self.lensText(range.upperBound)) (nearest) .. inf")
        }
        let span = request.nearDioptres - request.farDioptres
        let step: Double
        if let given = request.stepDioptres {
            guard given > 0, given.isFinite else { throw CameraError(.outOfRange, "bracket focus: the step must be more than 0 D") }
            step = given
        } else {
            guard let optics = FocusOptics(sensor: sensor) else {
                throw CameraError(.unsupported, "bracket focus: \(sensor.model)'s description has no focal length, f-number or pixel size, so `auto` cannot derive a step; give STEP in dioptres")
            }
            step = optics.autoStepDioptres
        }
        let positions = Self.focusPositions(near: request.nearDioptres, far: request.farDioptres, step: step)
        let frames = positions.count * request.evBiases.count
        if let resolution = sensor.lensPositionResolutionDioptres, step < resolution, span > 0 {
            let coarsest = Self.focusPositions(near: request.nearDioptres, far: request.farDioptres, step: resolution).count
            throw CameraError(.outOfRange, "bracket focus: a step of \(Self.number(step)) D is finer than the lens resolves (\(Self.number(resolution)) D); it would take \(frames) frames (\(coarsest * request.evBiases.count) at \(Self.number(resolution)) D)")
        }
        guard frames <= min(maximumFrames, Self.maximumSteps) else {
            throw CameraError(.outOfRange, "bracket focus: \(Self.lensText(request.nearDioptres)) .. \(Self.lensText(request.farDioptres)) in steps of \(Self.number(step)) D takes \(frames) frames, more than the bracket limit of \(min(maximumFrames, Self.maximumSteps))")
        }
        var plan = self
        plan.steps = positions.flatMap { lens in request.evBiases.map { BracketStep.focus(lensDioptres: lens, evBias: $0) } }
        return plan
    }

    /// Lens positions from `near` down to `far`, both included, evenly spaced no wider than `step`.
    public static func focusPositions(near: Double, far: Double, step: Double) -> [Double] {
        let span = near - far
        guard span > 1e-9, step > 0 else { return [near] }
        let gaps = max(Int((span / step - 1e-9).rounded(.up)), 1)
        return (0...gaps).map { near - span * Double($0) / Double(gaps) }
    }

    /// A number in three significant digits ("0.299", "5").
    public static func number(_ v: Double) -> String { String(format: "%.3g", v) }

    /// "5 D (0.2 m)", or "inf" for 0 D.
    static func lensText(_ dioptres: Double) -> String {
        dioptres <= 0 ? "inf" : "\(number(dioptres)) D (\(number(1 / dioptres)) m)"
    }
}

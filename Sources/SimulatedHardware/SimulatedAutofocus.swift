import Hardware

/// The lens's optics as the simulation uses them: defocus blur and the ISP's focus figure of merit.
struct SimulatedOptics: Sendable {
    /// Focal length, metres (4 mm when the entry has none).
    let focalLengthMetres: Double
    /// Pixel pitch, metres (1.4 µm when the entry has none).
    let pixelMetres: Double
    let fNumber: Double

    init(sensor: SensorDescription) {
        focalLengthMetres = (sensor.lens?.focalLengthMillimetres ?? 4) / 1000
        pixelMetres = (sensor.pixelSizeMicrometres ?? 1.4) / 1e6
        fNumber = sensor.lens?.fNumber ?? 2.8
    }

    /// Blur circle diameter on the sensor in full-resolution pixels for a lens at `lens` dioptres and
    /// a subject at `subjectDioptres`: b = f²/N · |ΔD| (thin lens, subject far compared with f).
    func defocusBlurPixels(lens: Double, subjectDioptres: Double) -> Double {
        let f = focalLengthMetres
        return f * f / fNumber * abs(lens - subjectDioptres) / pixelMetres
    }

    /// Contrast figure of merit of the full-resolution image (what the ISP's focus statistics see).
    func figureOfMerit(lens: Double, scene: SimulatedScene) -> Double {
        let b = defocusBlurPixels(lens: lens, subjectDioptres: scene.subjectDioptres)
        return 1000 / (1 + b * b / 9)
    }
}

/// The simulated lens and the IPA's autofocus: AfMode, a manual LensPosition, where the lens is,
/// AfState and a scan in progress. Advanced one frame at a time by `SimulatedSensorModel`.
struct SimulatedAutofocus: Sendable {
    /// Lens power where a fixed-focus lens sits, dioptres (2 m).
    static let fixedFocusDioptres = 0.5
    /// How far the simulated lens moves in one frame, dioptres: a manual LensPosition and phase
    /// detect's drive both travel at this speed, and each frame reports where the lens is.
    static let lensSlewDioptresPerFrame = 1.5

    /// The sensor entry's AF system: "phase", "contrast", or anything else for a fixed lens.
    let system: String
    /// The lens's furthest position, dioptres (0 without one).
    let lensMaximumDioptres: Double
    let optics: SimulatedOptics
    /// AfMode: 0 manual, 1 auto (on AfTrigger), 2 continuous.
    private(set) var mode: Int32 = 0
    /// The LensPosition asked for, dioptres (manual mode).
    private(set) var requestedLensDioptres: Double
    /// Where the lens is this frame, dioptres.
    private(set) var lensDioptres: Double
    /// AfState: 0 idle, 1 scanning, 2 focused, 3 failed.
    private(set) var state: Int32 = 0
    private var scan: [Double] = []
    private var scanResults: [(lens: Double, fom: Double)] = []
    private var scanIsFine = false
    private var peakFigureOfMerit = 0.0
    private var pdafFramesLeft = 0

    init(sensor: SensorDescription, optics: SimulatedOptics) {
        system = sensor.afSystem
        lensMaximumDioptres = sensor.lensPositionMaximumDioptres ?? 0
        self.optics = optics
        let lens = sensor.lensPositionDefaultDioptres ?? Self.fixedFocusDioptres
        requestedLensDioptres = lens
        lensDioptres = lens
    }

    /// True with phase or contrast detect; false for a fixed lens.
    var isPresent: Bool { system == "phase" || system == "contrast" }

    /// Applies a request's AfMode, LensPosition and AfTrigger (`immediately`: controls given at
    /// start, in place before the first frame, so the lens is set then).
    mutating func apply(_ controls: ControlList, immediately: Bool) {
        if let m = controls[ControlName.afMode]?.int64Value, Int32(m) != mode {
            mode = Int32(clamping: m)
            cancelScan()
            state = 0
            if mode == 2 { startScan() }
        }
        if let l = controls[ControlName.lensPosition]?.doubleValue {
            requestedLensDioptres = min(max(l, 0), lensMaximumDioptres)
            if immediately { lensDioptres = requestedLensDioptres }
        }
        if let t = controls[ControlName.afTrigger]?.int64Value, mode == 1 {
            if t == 0 { startScan() } else { cancelScan(); state = 0 }
        }
    }

    /// Moves the lens for this frame and updates AfState; returns the frame's figure of merit.
    mutating func step(scene: SimulatedScene) -> Double {
        guard isPresent else {
            lensDioptres = Self.fixedFocusDioptres
            return optics.figureOfMerit(lens: lensDioptres, scene: scene)
        }
        switch mode {
        case 0:
            let error = requestedLensDioptres - lensDioptres
            lensDioptres += max(min(error, Self.lensSlewDioptresPerFrame), -Self.lensSlewDioptresPerFrame)
        case _ where system == "phase":
            // Phase detect measures the error directly: the lens slews (≤ 1.5 D/frame) to the subject.
            if mode == 2 || state == 1 {
                let error = scene.subjectDioptres - lensDioptres
                lensDioptres += max(min(error, Self.lensSlewDioptresPerFrame), -Self.lensSlewDioptresPerFrame)
                let settled = abs(scene.subjectDioptres - lensDioptres) < 0.05
                if mode == 1 {
                    pdafFramesLeft -= 1
                    if settled && pdafFramesLeft <= 0 { state = 2 }
                } else {
                    state = settled ? 2 : 1
                }
            }
        default:
            stepContrastScan(scene: scene)
        }
        return optics.figureOfMerit(lens: lensDioptres, scene: scene)
    }

    private mutating func startScan() {
        scanResults = []
        scanIsFine = false
        pdafFramesLeft = 2
        if system == "contrast" {
            scan = Array(stride(from: 0.0, through: lensMaximumDioptres, by: 1.0))
        }
        state = 1
    }

    private mutating func cancelScan() { scan = []; scanResults = []; pdafFramesLeft = 0 }

    /// Contrast detect: a coarse sweep (1 D steps), a fine sweep (0.25 D) round the best, then park.
    private mutating func stepContrastScan(scene: SimulatedScene) {
        if state != 1 {
            // Continuous mode re-triggers when contrast drops below 75 % of the peak.
            if mode == 2, optics.figureOfMerit(lens: lensDioptres, scene: scene) < 0.75 * peakFigureOfMerit { startScan() }
            else { return }
        }
        if !scan.isEmpty {
            lensDioptres = scan.removeFirst()
            scanResults.append((lensDioptres, optics.figureOfMerit(lens: lensDioptres, scene: scene)))
            return
        }
        guard let best = scanResults.max(by: { $0.fom < $1.fom }) else { state = 3; return }
        if !scanIsFine {
            scanIsFine = true
            scan = stride(from: best.lens - 0.75, through: best.lens + 0.75, by: 0.25).filter { $0 >= 0 && $0 <= lensMaximumDioptres }
            scanResults = [best]
            return
        }
        lensDioptres = best.lens
        peakFigureOfMerit = best.fom
        state = best.fom > 50 ? 2 : 3
    }
}

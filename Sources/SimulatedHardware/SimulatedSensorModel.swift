import Foundation
import Hardware

/// A value that changes at a frame boundary: what the sensor will use from frame N onwards.
/// Models libcamera's DelayedControls: a value written at frame s with delay d applies from s + d.
struct DelayLine<Value: Sendable>: Sendable {
    private var entries: [(frame: UInt64, value: Value)]
    init(_ initial: Value) { entries = [(0, initial)] }

    /// Makes `value` current from frame `frame` on (replacing anything scheduled at or after it).
    mutating func set(_ value: Value, from frame: UInt64) {
        entries.removeAll { $0.frame >= frame }
        entries.append((frame, value))  // the frame-0 entry survives unless `frame` is 0 itself
        if entries.count > 16 { entries.removeFirst(entries.count - 16) }
    }

    func value(at frame: UInt64) -> Value {
        entries.last { $0.frame <= frame }?.value ?? entries[0].value
    }
}

/// What the sensor and ISP actually used for one frame: the simulated camera's metadata.
struct SimulatedFrameParameters: Sendable {
    var exposureMicroseconds: Int
    var analogueGain: Double
    var digitalGain: Double
    var redGain: Double
    var blueGain: Double
    var colourTemperatureKelvin: Double
    var lensPositionDioptres: Double
    var afState: Int32
    var frameDurationMicroseconds: Int64
    var aeLocked: Bool
    var focusFigureOfMerit: Double
}

/// The simulated sensor + IPA: control delays, auto exposure, auto white balance and autofocus,
/// advanced one frame at a time. Pure state; no clock, no I/O.
struct SimulatedSensorModel: Sendable {
    let sensor: SensorDescription
    let mode: SensorDescription.Mode
    let colour: SimulatedColourResponse
    let optics: SimulatedOptics

    // Requested state (libcamera controls persist until changed).
    var aeEnabled = true
    var awbEnabled = true
    var fixedExposureMicroseconds: Int?
    var fixedGain: Double?
    var manualColourGains: (red: Double, blue: Double)?
    var exposureValueEV = 0.0
    var scalerCrop: PixelRect

    // Algorithm state.
    private var aeTotal: Double = 10_000  // µs × gain
    private(set) var awbGains: (red: Double, blue: Double) = (1.6, 1.6)
    /// The lens and its autofocus (AfMode, LensPosition, AfState, scans).
    private(set) var autofocus: SimulatedAutofocus

    private var exposureLine: DelayLine<Int>
    private var gainLine: DelayLine<Double>
    private var frameLimitsLine: DelayLine<[Int64]>

    var hasAutofocus: Bool { autofocus.isPresent }
    var minimumFrameDurationMicroseconds: Int64 { Int64((1e6 / max(mode.maximumFps, 0.1)).rounded(.up)) }
    var maximumFrameDurationMicroseconds: Int64 { Int64(max(sensor.exposureMaximumMicroseconds, 1)) }

    init(sensor: SensorDescription, mode: SensorDescription.Mode) {
        self.sensor = sensor
        self.mode = mode
        colour = SimulatedColourResponse(sensor.colourCalibration)
        optics = SimulatedOptics(sensor: sensor)
        autofocus = SimulatedAutofocus(sensor: sensor, optics: optics)
        scalerCrop = mode.crop
        exposureLine = DelayLine(10_000)
        gainLine = DelayLine(1.0)
        frameLimitsLine = DelayLine([Int64((1e6 / max(mode.maximumFps, 0.1)).rounded(.up)),
                                     Int64(max(sensor.exposureMaximumMicroseconds, 1))])
    }

    /// Applies a request's controls when the pipeline takes it for frame `frame`. Exposure and gain
    /// reach the sensor `exposureDelayFrames`/`gainDelayFrames` later, frame limits after the
    /// vblank delay; ISP and lens controls apply to this frame.
    mutating func apply(_ controls: ControlList, atFrame frame: UInt64, immediately: Bool = false) {
        let expDelay = immediately ? 0 : UInt64(sensor.exposureDelayFrames)
        let gainDelay = immediately ? 0 : UInt64(sensor.gainDelayFrames)
        // Frame length is aligned with the exposure it accompanies (DelayedControls writes vblank
        // earlier to cover its longer delay), so it uses the exposure delay.
        let vblankDelay = expDelay
        if let v = controls[ControlName.aeEnable]?.boolValue { aeEnabled = v }
        // libcamera 0.5+: the modes take precedence over AeEnable; ExposureTime and AnalogueGain
        // count only in manual mode, and auto hands the value back to AE.
        let exposureMode = controls[ControlName.exposureTimeMode]?.int64Value
        let gainMode = controls[ControlName.analogueGainMode]?.int64Value
        if let e = exposureMode ?? gainMode { aeEnabled = (exposureMode ?? e) == 0 || (gainMode ?? e) == 0 }
        if exposureMode == 0 { fixedExposureMicroseconds = nil }
        if gainMode == 0 { fixedGain = nil }
        if let v = controls[ControlName.awbEnable]?.boolValue {
            awbEnabled = v
            // Turning AWB on without giving gains releases manual gains (as the Raspberry Pi IPA does).
            if v, controls[ControlName.colourGains] == nil { manualColourGains = nil }
        }
        if let v = controls[ControlName.exposureValue]?.doubleValue { exposureValueEV = v }
        if exposureMode != 0, let v = controls[ControlName.exposureTime]?.int64Value {
            // 0 returns the exposure time to AE (Raspberry Pi IPA convention).
            fixedExposureMicroseconds = v > 0 ? Int(clamping: v) : nil
            if v > 0 { exposureLine.set(Int(clamping: v), from: frame + expDelay) }
        }
        if gainMode != 0, let v = controls[ControlName.analogueGain]?.doubleValue {
            fixedGain = v > 0 ? min(max(v, sensor.analogueGainMinimum), sensor.analogueGainMaximum) : nil
            if let g = fixedGain { gainLine.set(g, from: frame + gainDelay) }
        }
        if let g = controls[ControlName.colourGains]?.doubleArray, g.count == 2 {
            manualColourGains = g[0] > 0 && g[1] > 0 ? (g[0], g[1]) : nil
        }
        if let l = controls[ControlName.frameDurationLimits]?.doubleArray, l.count == 2 {
            let lo = max(Int64(l[0]), minimumFrameDurationMicroseconds)
            let hi = max(min(Int64(l[1]), maximumFrameDurationMicroseconds), lo)
            frameLimitsLine.set([lo, hi], from: frame + vblankDelay)
        }
        if case .rectangle(let r)? = controls[ControlName.scalerCrop] { scalerCrop = clampCrop(r) }
        if hasAutofocus { autofocus.apply(controls, immediately: immediately) }
    }

    private func clampCrop(_ r: PixelRect) -> PixelRect {
        let c = mode.crop
        let w = min(max(r.width, 16), c.width), h = min(max(r.height, 16), c.height)
        let x = min(max(r.x, c.x), c.x + c.width - w), y = min(max(r.y, c.y), c.y + c.height - h)
        return PixelRect(x: x, y: y, width: w, height: h)
    }

    /// Runs the algorithms for frame `frame` of `scene` and returns what the frame used.
    mutating func step(frame: UInt64, scene: SimulatedScene) -> SimulatedFrameParameters {
        // Auto exposure: a first-order filter in log space towards the correct exposure; its output
        // goes through the same sensor delays as requested values.
        let ideal = scene.correctExposureMicrosecondsISO(fNumber: optics.fNumber) / sensor.isoPerGain * pow(2, exposureValueEV)
        if aeEnabled {
            aeTotal = exp(log(aeTotal) + 0.55 * (log(ideal) - log(aeTotal)))
            let limits = frameLimitsLine.value(at: frame)
            let (t, g) = split(aeTotal, maximumExposure: Double(min(limits[1], 66_666)))
            if fixedExposureMicroseconds == nil {
                exposureLine.set(fixedGain.map { Int(min(aeTotal / $0, Double(limits[1]))) } ?? t,
                                 from: frame + UInt64(sensor.exposureDelayFrames))
            }
            if fixedGain == nil {
                let gain = fixedExposureMicroseconds.map { aeTotal / Double($0) } ?? g
                gainLine.set(min(max(gain, sensor.analogueGainMinimum), sensor.analogueGainMaximum),
                             from: frame + UInt64(sensor.gainDelayFrames))
            }
        }
        let limits = frameLimitsLine.value(at: frame)
        let requestedExposure = max(exposureLine.value(at: frame), sensor.exposureMinimumMicroseconds)
        let frameDuration = min(max(Int64(requestedExposure), limits[0]), limits[1])
        let exposure = min(requestedExposure, Int(frameDuration))
        let gain = gainLine.value(at: frame)
        if !aeEnabled { aeTotal = Double(exposure) * gain }
        let aeLocked = abs(log(Double(exposure) * gain / ideal)) < 0.02

        // Auto white balance: moves 70 % of the way (in log gains) each frame.
        let white = colour.whiteGains(kelvin: scene.illuminantKelvin)
        if let manual = manualColourGains {
            awbGains = manual
        } else if awbEnabled {
            awbGains = (exp(log(awbGains.red) + 0.7 * (log(white.red) - log(awbGains.red))),
                        exp(log(awbGains.blue) + 0.7 * (log(white.blue) - log(awbGains.blue))))
        }
        let fom = autofocus.step(scene: scene)
        return SimulatedFrameParameters(
            exposureMicroseconds: exposure, analogueGain: gain, digitalGain: 1.0,
            redGain: awbGains.red, blueGain: awbGains.blue,
            colourTemperatureKelvin: colour.temperature(red: awbGains.red, blue: awbGains.blue),
            lensPositionDioptres: autofocus.lensDioptres, afState: autofocus.state, frameDurationMicroseconds: frameDuration,
            aeLocked: aeLocked, focusFigureOfMerit: fom)
    }

    /// Splits an exposure product (µs × gain) into time first (up to `maximumExposure`), then gain.
    private func split(_ total: Double, maximumExposure: Double) -> (Int, Double) {
        let t = min(max(total / sensor.analogueGainMinimum, Double(sensor.exposureMinimumMicroseconds)), maximumExposure)
        let g = min(max(total / t, sensor.analogueGainMinimum), sensor.analogueGainMaximum)
        return (Int(t.rounded()), g)
    }

    /// Blur circle diameter on the sensor in full-resolution pixels for a lens at `lens` dioptres
    /// (`SimulatedOptics`), focused on the scene's subject.
    func defocusBlurPixels(lens: Double, scene: SimulatedScene) -> Double {
        optics.defocusBlurPixels(lens: lens, subjectDioptres: scene.subjectDioptres)
    }

    /// The same for a subject at `subjectDioptres` (one strip of `sim scene depth`).
    func defocusBlurPixels(lens: Double, subjectDioptres: Double) -> Double {
        optics.defocusBlurPixels(lens: lens, subjectDioptres: subjectDioptres)
    }
}

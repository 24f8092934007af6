import Foundation
import Hardware
import Testing
@testable import Media
import ManualLoop
@testable import SimulatedHardware

/// A full-size capture of the simulated chart (12 MP raw + 12 MP still), written as DNG and JPEG
/// and checked by outside decoders: rawpy (LibRaw) develops the DNG with the camera's white
/// balance and colour matrix, exiftool reads the sizes.
@Suite(.serialized) struct SimulatedChartCaptureTests {
    /// One exposure of the chart at EV 0 (AE's own exposure for the scene) with the sensor's white
    /// balance for the scene light, both streams at the full mode's size.
    static func capture() throws -> (raw: FrameBuffer, still: FrameBuffer, metadata: ControlList, sensor: SensorDescription) {
        let sensor = try SensorDescription.embedded(model: "imx708")
        let loop = ManualEventLoop()
        let scene = SimulatedScene()
        let provider = SimulatedCameraProvider(loop: loop, sensor: sensor, scene: scene, seed: 5)
        let camera = try #require(try provider.open(id: provider.cameraID) as? SimulatedCamera)
        let full = PixelSize(width: 4608, height: 2592)
        _ = try camera.configure([StreamConfiguration(role: .stillCapture, pixelFormat: .bgr888, size: full),
                                  StreamConfiguration(role: .raw, pixelFormat: PixelFormat("SRGGB10"), size: full)])
        let white = SimulatedColourResponse(sensor.colourCalibration).whiteGains(kelvin: scene.illuminantKelvin)
        let exposure = scene.correctExposureMicrosecondsISO(fNumber: sensor.lens?.fNumber ?? 1.8) / sensor.isoPerGain
        let done = Completions()
        camera.setEventHandler { if case .requestCompleted(let c) = $0 { done.list.append(c) } }
        try camera.start(controls: [ControlName.aeEnable: .bool(false), ControlName.exposureTime: .int32(Int32(exposure.rounded())),
                                    ControlName.analogueGain: .float(1), ControlName.awbEnable: .bool(false),
                                    ControlName.colourGains: .floatArray([Float(white.red), Float(white.blue)]),
                                    ControlName.afMode: .int32(0), ControlName.lensPosition: .float(Float(scene.subjectDioptres))])
        try camera.queueRequest(CaptureRequest(cookie: 1, roles: [.stillCapture, .raw]))
        loop.advance(by: .milliseconds(200))
        camera.stop()
        let frame = try #require(done.list.first { $0.isComplete })
        return (try #require(frame.buffers[.raw]), try #require(frame.buffers[.stillCapture]), frame.metadata, sensor)
    }

    /// Boxes over the middle of each checker patch, in pixels of an image of `size` showing the whole chart.
    static func patchBoxes(size: PixelSize) -> [[Int]] {
        let half = TestChart.patchSize * 0.3
        return (0..<24).map { i in
            let c = TestChart.patchCentre(i)
            let sx = Double(size.width) / TestChart.aspect, sy = Double(size.height)
            return [Int((c.x - half) * sx), Int((c.y - half) * sy), Int((c.x + half) * sx), Int((c.y + half) * sy)]
        }
    }

    @Test func rawpyDevelopsTheChartDNGToItsReferenceColours() throws {
        let (raw, still, metadata, sensor) = try Self.capture()
        #expect(raw.size == PixelSize(width: 4608, height: 2592) && still.size == raw.size)
        let ccm = try #require(metadata["ColourCorrectionMatrix"]?.doubleArray)
        let gains = try #require(metadata[ControlName.colourGains]?.doubleArray)
        let settings = FrameSettings(exposureTimeMicroseconds: Int(metadata[ControlName.exposureTime]?.int64Value ?? 0),
                                     analogueGain: 1, colourGains: ColourGains(red: gains[0], blue: gains[1]), lensPositionDioptres: nil)
        let calibration = try #require(ColourCalibration.fromLibcamera(colourCorrectionMatrix: ccm, gains: ColourGains(red: gains[0], blue: gains[1]),
                                                                       colourTemperatureKelvin: 5000))
        #expect(calibration.colorMatrix1 != ColourCalibration.genericSRGB.colorMatrix1)
        let exif = CaptureExif(camera: testCamera, settings: settings, captureDate: Date(timeIntervalSince1970: 1_790_000_000),
                               timeZone: TimeZone(identifier: "UTC") ?? .current, size: raw.size)
        let black = Double((sensor.blackLevel16 ?? 0) >> 6)
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let dng = directory + "/chart.dng", jpeg = directory + "/chart.jpg", boxes = directory + "/boxes.json"
        try Data(try DNGWriter.encode(raw, description: DNGDescription(exif: exif, blackLevel: black, colour: calibration))).write(to: URL(fileURLWithPath: dng))
        try Data(try JPEGWriter.encode(still, exif: exif, quality: 90)).write(to: URL(fileURLWithPath: jpeg))
        try JSONSerialization.data(withJSONObject: Self.patchBoxes(size: raw.size)).write(to: URL(fileURLWithPath: boxes))

        // The files' sizes are the mode's and the stream's.
        for file in [dng, jpeg] {
            let tags = try exiftoolJSON(file)
            let width = (tags["EXIF:ImageWidth"] ?? tags["File:ImageWidth"]) as? Int
            let height = (tags["EXIF:ImageHeight"] ?? tags["File:ImageHeight"]) as? Int
            #expect(width == 4608 && height == 2592, "\(file): \(String(describing: width))x\(String(describing: height))")
        }

        let result = try runPython([#filePath.replacingOccurrences(of: "SimulatedChartCaptureTests.swift", with: "Chart/measure_patches.py"), dng, boxes])
        let decoded = try #require(try JSONSerialization.jsonObject(with: result) as? [String: Any])
        let measured = try #require(decoded["lab"] as? [[Double]])
        #expect(measured.count == 24)
        var deltas: [Double] = []
        for (i, lab) in measured.enumerated() {
            let reference = labD65(TestChart.checkerRGB[i])
            let delta = deltaE2000(lab, reference)
            deltas.append(delta)
            if i >= 18 {  // the neutral row
                #expect(abs(lab[1]) <= 3 && abs(lab[2]) <= 3, "grey patch \(i + 1): a* \(lab[1]) b* \(lab[2])")
            }
            #expect(delta < 6, "patch \(i + 1): L*a*b* \(lab) vs \(reference): ΔE00 \(delta)")
        }
        let mean = deltas.reduce(0, +) / Double(deltas.count)
        print("chart DNG through rawpy: mean ΔE00 \(mean), max \(deltas.max() ?? 0)")
        #expect(mean < 3)

        // The still's grey patches are neutral and an EV 0 frame puts the 50 L* patch near sRGB 119.
        for (i, box) in Self.patchBoxes(size: still.size).enumerated() where i >= 18 {
            let rgb = meanSRGB(still, box: box)
            let lab = labD65(rgb.map(decodeSRGB))
            #expect(abs(lab[1]) <= 3 && abs(lab[2]) <= 3, "JPEG grey patch \(i + 1): \(lab)")
            if i == 21 { #expect(abs(rgb[1] * 255 - 119) < 12, "neutral 5 at \(rgb[1] * 255)") }
        }
    }
}

private final class Completions: @unchecked Sendable {
    var list: [CompletedRequest] = []
}

/// Runs the test venv's python (tools/setup makes it); a missing venv is a clear failure.
private func runPython(_ arguments: [String]) throws -> Data {
    let cache = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"] ?? (NSHomeDirectory() + "/.cache")
    let python = cache + "/tripod/pyenv/bin/python"
    guard FileManager.default.isExecutableFile(atPath: python) else {
        throw ToolError(description: "\(python) is missing: run tools/setup (it installs rawpy into that venv)")
    }
    let result = try runExecutable(python, arguments)
    guard result.status == 0 else {
        throw ToolError(description: "python \(arguments.first ?? "") failed: \(result.stderr)")
    }
    return result.stdout
}

/// Mean sRGB-encoded R, G, B (0…1) of a BGR888 frame over a box.
private func meanSRGB(_ frame: FrameBuffer, box: [Int]) -> [Double] {
    frame.withUnsafeBytes { bytes in
        var sum = [0.0, 0.0, 0.0], count = 0.0
        for y in box[1]..<box[3] {
            for x in box[0]..<box[2] {
                for c in 0..<3 { sum[c] += Double(bytes[y * frame.stride + x * 3 + c]) }
                count += 1
            }
        }
        return sum.map { $0 / count / 255 }
    }
}

private func decodeSRGB(_ v: Double) -> Double { v <= 0.040_45 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }

/// CIE L*a*b* (D65 white) of linear sRGB.
private func labD65(_ rgb: SIMD3<Double>) -> [Double] { labD65([rgb.x, rgb.y, rgb.z]) }

private func labD65(_ rgb: [Double]) -> [Double] {
    let m = [[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750], [0.0193339, 0.1191920, 0.9503041]]
    let white = [0.95047, 1.0, 1.08883]
    let f = (0..<3).map { row -> Double in
        let t = (0..<3).map { m[row][$0] * rgb[$0] }.reduce(0, +) / white[row]
        return t > pow(6.0 / 29, 3) ? cbrt(t) : t / (3 * pow(6.0 / 29, 2)) + 4.0 / 29
    }
    return [116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])]
}

/// CIEDE2000 colour difference (Sharma, Wu and Dalal's formulation).
private func deltaE2000(_ p: [Double], _ q: [Double]) -> Double {
    let (l1, a1, b1, l2, a2, b2) = (p[0], p[1], p[2], q[0], q[1], q[2])
    let c1 = hypot(a1, b1), c2 = hypot(a2, b2), cMean = (c1 + c2) / 2
    let g = 0.5 * (1 - (pow(cMean, 7) / (pow(cMean, 7) + pow(25, 7))).squareRoot())
    let a1p = (1 + g) * a1, a2p = (1 + g) * a2
    let c1p = hypot(a1p, b1), c2p = hypot(a2p, b2)
    func hue(_ b: Double, _ a: Double) -> Double {
        guard a != 0 || b != 0 else { return 0 }
        let h = atan2(b, a) * 180 / .pi
        return h < 0 ? h + 360 : h
    }
    let h1 = hue(b1, a1p), h2 = hue(b2, a2p)
    let dL = l2 - l1, dC = c2p - c1p
    var dh = 0.0
    if c1p * c2p != 0 { dh = h2 - h1; if dh > 180 { dh -= 360 } else if dh < -180 { dh += 360 } }
    let dH = 2 * (c1p * c2p).squareRoot() * sin(dh * .pi / 360)
    let lMean = (l1 + l2) / 2, cpMean = (c1p + c2p) / 2
    var hMean = h1 + h2
    if c1p * c2p != 0 {
        hMean = abs(h1 - h2) <= 180 ? (h1 + h2) / 2 : (h1 + h2 + (h1 + h2 < 360 ? 360 : -360)) / 2
    }
    let t = 1 - 0.17 * cos((hMean - 30) * .pi / 180) + 0.24 * cos(2 * hMean * .pi / 180)
        + 0.32 * cos((3 * hMean + 6) * .pi / 180) - 0.20 * cos((4 * hMean - 63) * .pi / 180)
    let sL = 1 + 0.015 * pow(lMean - 50, 2) / (20 + pow(lMean - 50, 2)).squareRoot()
    let sC = 1 + 0.045 * cpMean, sH = 1 + 0.015 * cpMean * t
    let rT = -2 * (pow(cpMean, 7) / (pow(cpMean, 7) + pow(25, 7))).squareRoot()
        * sin(60 * exp(-pow((hMean - 275) / 25, 2)) * .pi / 180)
    return (pow(dL / sL, 2) + pow(dC / sC, 2) + pow(dH / sH, 2) + rT * (dC / sC) * (dH / sH)).squareRoot()
}

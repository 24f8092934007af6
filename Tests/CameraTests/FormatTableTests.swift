import Foundation
import Hardware
import SimulatedHardware
import Testing
@testable import Camera

func imx708Formats() throws -> [CameraFormat] {
    let rig = try Rig()
    return rig.controller.formats
}

@Test func imx708TableRendersWithIts120fpsMode() throws {
    let formats = try imx708Formats()
    let text = FormatTable.renderText(formats)
    let lines = text.split(separator: "\n")
    #expect(lines.count == formats.count + 1)
    let line = try #require(lines.first { $0.contains("1536x864") })
    #expect(line.contains("-120.12"))
    #expect(line.contains("phase"))
    // Aligned: every row has its "size" column starting at the same offset.
    func column(_ line: Substring, _ text: String) -> Int? {
        line.range(of: text).map { line.distance(from: line.startIndex, to: $0.lowerBound) }
    }
    for (line, format) in zip(lines.dropFirst(), formats) {
        #expect(column(line, format.size.description) == column(lines[0], "size"))
        #expect(column(line, format.afSystem) == column(lines[0], "af"))
    }
    let json = try FormatTable.renderJSON(formats)
    let decoded = try JSONDecoder().decode([CameraFormat].self, from: Data(json.utf8))
    #expect(decoded == formats)
}

@Test func imx708FormatFacts() throws {
    let formats = try imx708Formats()
    #expect(formats.map(\.label) == ["1280x720@120", "1280x720@56", "1536x864@120", "1920x1080@56", "2304x1296@56", "4608x2592@14"])
    let full = try #require(formats.last)
    // Camera Module 3: 4608 × 1.4 µm through 4.74 mm is about 68.5° across.
    #expect(abs((full.horizontalFieldOfViewDegrees ?? 0) - 68.5) < 0.5)
    #expect(full.highResolutionStill == PixelSize(width: 4608, height: 2592))
    // The largest still without interrupting the format: its sensor mode (the DNG), binned or not.
    #expect(formats.map(\.highResolutionStill.description) == ["1536x864", "2304x1296", "1536x864", "2304x1296", "2304x1296", "4608x2592"])
    #expect(full.minimumISO == 100 && full.maximumISO == 1600)
    let hd = try #require(formats.first { $0.label == "1920x1080@56" })
    #expect(hd.isBinned)
    #expect(abs(hd.upscaleStartZoom - 1.2) < 1e-9)
    #expect(hd.stabilizationModes == [.off, .standard, .cinematic, .auto])
    // The simulated camera lists HdrMode as a Pi 5 does; the rig's controller has no SensorHDRSwitch.
    #expect(hd.videoHDR == VideoHDRSupport(sensor: false, hdrModes: [.multiExposureUnmerged, .multiExposure, .singleExposure, .night]))
    #expect(hd.maximumZoom == 16)
    let crop = try #require(formats.first { $0.label == "1536x864@120" })
    #expect(crop.stabilizationModes == [.off])  // mode size = output: no headroom
    #expect(crop.videoHDR.videoHdrMode == .multiExposure)  // HdrMode is the ISP's: every mode has it
    #expect((crop.horizontalFieldOfViewDegrees ?? 0) < (hd.horizontalFieldOfViewDegrees ?? 0))
}

/// The `hdr` column names each kind of video HDR a format has: the sensor's own HDR mode where its
/// size is the format's mode size and the manager can switch it, and the HdrMode values the camera
/// lists (libcamera describes the control by its values: Off…Night on a Pi 5). Without either: "no".
@Test func hdrColumnNamesTheSensorModeAndTheListedHdrModes() throws {
    let imx708 = try sensor("imx708")
    let rig = try Rig(libcamera: .debian0_0_3)
    let listed = rig.camera.controlInfo
    #expect(listed[ControlName.hdrMode] == nil)  // 0.0.3 has no HdrMode
    let plain = FormatTable.formats(sensor: imx708, controlInfo: listed)
    #expect(plain.allSatisfy { $0.videoHDR == .none && $0.videoHDR.label == "no" && !$0.videoHDR.isSupported })

    // The sensor's HDR mode is 2304x1296: formats on that mode have it, the 120 fps crop and the full mode do not.
    let switchable = FormatTable.formats(sensor: imx708, controlInfo: listed, sensorHDRSwitchable: true)
    #expect(switchable.map(\.videoHDR.label) == ["no", "sensor", "no", "sensor", "sensor", "no"])
    #expect(switchable.first { $0.label == "1920x1080@56" }?.videoHDR.preferredKind == .sensor)

    // A Pi 4's listing of only MultiExposureUnmerged gives no HdrMode for video: the sensor's mode is used.
    var pi4 = listed
    pi4[ControlName.hdrMode] = ControlInfo(name: ControlName.hdrMode, minimum: .int32(0), maximum: .int32(1), defaultValue: .int32(0))
    let pi4Formats = FormatTable.formats(sensor: imx708, controlInfo: pi4, sensorHDRSwitchable: true)
    let pi4HD = try #require(pi4Formats.first { $0.label == "1920x1080@56" })
    #expect(pi4HD.videoHDR.label == "sensor,MultiExposureUnmerged")
    #expect(pi4HD.videoHDR.preferredKind == .sensor)
    #expect(try #require(pi4Formats.first { $0.label == "1536x864@120" }).videoHDR.isSupported == false)

    // All of HdrMode's values (a Pi 5): MultiExposure for video, without a restart.
    var pi5 = listed
    pi5[ControlName.hdrMode] = ControlInfo(name: ControlName.hdrMode, minimum: .int32(0), maximum: .int32(4), defaultValue: .int32(0))
    let formats = FormatTable.formats(sensor: imx708, controlInfo: pi5, sensorHDRSwitchable: true)
    let hd = try #require(formats.first { $0.label == "1920x1080@56" })
    #expect(hd.videoHDR.preferredKind == .hdrMode(.multiExposure))
    let lines = FormatTable.renderText(formats).split(separator: "\n")
    let hdrRange = try #require(lines[0].range(of: "hdr"))
    let offset = lines[0].distance(from: lines[0].startIndex, to: hdrRange.lowerBound)
    let row = try #require(lines.dropFirst().first { $0.contains("1920x1080") && $0.contains("-56") })
    #expect(row.dropFirst(offset).hasPrefix("sensor,MultiExposureUnmerged,MultiExposure,SingleExposure,Night"))
    // JSON names the values.
    let json = try FormatTable.renderJSON([hd])
    #expect(json.contains("\"MultiExposure\""))
    #expect(try JSONDecoder().decode([CameraFormat].self, from: Data(json.utf8)) == [hd])
}

/// One AF rule for the table and the controller: AfMode listed means the sensor's AF system,
/// whatever LensPosition says; without AfMode there is no focus to offer.
@Test func theTableAndTheControllerAgreeOnAutofocus() throws {
    for (hidden, expected) in [(ControlName.afMode, "none"), (ControlName.lensPosition, "phase"), ("", "phase")] {
        let rig = try Rig(hiding: hidden.isEmpty ? [] : [hidden])
        #expect(rig.controller.afSystem == expected, "hiding \(hidden)")
        #expect(rig.controller.formats.allSatisfy { $0.afSystem == expected }, "hiding \(hidden)")
        #expect(FormatTable.autofocusSystem(sensor: rig.controller.sensor,
                                            controlInfo: rig.controller.device.controlInfo) == expected)
    }
}

@Test func stabilizationRule() {
    let hd = PixelSize(width: 1920, height: 1080)
    #expect(StabilizationMode.supported(output: hd, maximumFps: 30, headroom: 0.05) == [.off])
    #expect(StabilizationMode.supported(output: hd, maximumFps: 30, headroom: 0.15) == [.off, .standard, .auto])
    #expect(StabilizationMode.supported(output: hd, maximumFps: 60, headroom: 0.25) == [.off, .standard, .cinematic, .auto])
    #expect(StabilizationMode.supported(output: PixelSize(width: 1280, height: 720), maximumFps: 60, headroom: 0.5)
            == [.off, .standard, .auto])
    #expect(StabilizationMode.supported(output: hd, maximumFps: 24, headroom: 0.5) == [.off, .standard, .auto])
}

@Test func fixedFocusAndLensLessSensorsInTheTable() throws {
    let rig = try Rig(model: "imx477")
    #expect(rig.controller.formats.allSatisfy { $0.afSystem == "none" && $0.horizontalFieldOfViewDegrees == nil })
    #expect(FormatTable.renderText(rig.controller.formats).contains("unknown"))
}

@Test func selectByIndexAndBySizeAndRate() throws {
    let formats = try imx708Formats()
    let byIndex = try FormatTable.select("3", from: formats)
    #expect(byIndex.format.label == "1920x1080@56")
    #expect(byIndex.fixedFps == nil)
    #expect(byIndex.minimumFrameDurationMicroseconds == byIndex.format.minimumFrameDurationMicroseconds)

    let fast = try FormatTable.select("1536x864@120", from: formats)
    #expect(fast.minimumFrameDurationMicroseconds == 8333 && fast.maximumFrameDurationMicroseconds == 8333)

    // 720p at 30 fits both 720p formats; the binned one sees more.
    let wide = try FormatTable.select("1280x720@30", from: formats)
    #expect(wide.format.label == "1280x720@56")
    #expect(wide.minimumFrameDurationMicroseconds == 33333 && wide.maximumFrameDurationMicroseconds == 33333)
    // 720p at 100 only fits the cropped 120 fps mode.
    #expect(try FormatTable.select("1280x720@100", from: formats).format.label == "1280x720@120")
}

@Test func unsupportedChoicesNameTheNearestFormats() throws {
    let formats = try imx708Formats()
    #expect {
        try FormatTable.select("1920x1080@60", from: formats)
    } throws: { error in
        let e = error as? CameraError
        return e?.kind == .noSuchFormat && e?.message.contains("#3 1920x1080@") == true && e?.message.contains("nearest") == true
    }
    #expect {
        try FormatTable.select("9", from: formats)
    } throws: { error in (error as? CameraError)?.message.contains("0...5") == true }
    #expect {
        try FormatTable.select("fast please", from: formats)
    } throws: { error in (error as? CameraError)?.message.contains("WxH@fps") == true }
}

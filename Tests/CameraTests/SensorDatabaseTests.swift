import Boards
import Foundation
import Hardware
import ManualLoop
import SimulatedHardware
import Testing
@testable import Camera

@Test func databaseLoadsAllFiveSensorsWithTheirKeyFacts() throws {
    let db = try database()
    #expect(Set(db.sensors.keys) == ["imx708", "imx477", "imx219", "ov5647", "imx296"])
    let imx708 = try #require(db.sensor(model: "IMX708"))
    #expect(imx708.afSystem == "phase")
    #expect(imx708.hdr)
    #expect(imx708.modes.contains { $0.size == PixelSize(width: 1536, height: 864) && $0.maximumFps >= 120 })
    #expect(imx708.exposureDelayFrames == 2 && imx708.gainDelayFrames == 2 && imx708.vblankDelayFrames == 3)
    #expect(try #require(db.sensor(model: "imx219")).gainDelayFrames == 1)
    #expect(try #require(db.sensor(model: "imx477")).lens == nil)
    for s in db.sensors.values {
        #expect(s.analogueGainMinimum < s.analogueGainMaximum, "\(s.model) gain range")
        #expect(s.exposureMinimumMicroseconds < s.exposureMaximumMicroseconds, "\(s.model) exposure range")
        #expect((s.colourCalibration?.count ?? 0) >= 5, "\(s.model) calibration")
        #expect(!(s.notes ?? []).isEmpty, "\(s.model) notes")
        for m in s.modes {
            #expect(m.crop.x + m.crop.width <= s.pixelArray.width && m.crop.y + m.crop.height <= s.pixelArray.height,
                    "\(s.model) \(m.size) crop inside the array")
        }
    }
}

@Test func embeddedIMX708MatchesTheDatabaseFile() throws {
    #expect(try SensorDescription.embedded(model: "imx708") == sensor("imx708"))
}

@Test func unknownSensorGetsWhatLibcameraReportsAndUnknownForTheRest() throws {
    let info = CameraInfo(id: "x", model: "imx999", location: .back, pixelArraySize: PixelSize(width: 2000, height: 1500),
                          unitCellSizeNanometres: PixelSize(width: 2000, height: 2000))
    let controls = [ControlName.analogueGain: ControlInfo(name: ControlName.analogueGain, minimum: .float(1), maximum: .float(8), defaultValue: nil),
                    ControlName.exposureTime: ControlInfo(name: ControlName.exposureTime, minimum: .int32(10), maximum: .int32(5_000_000), defaultValue: nil)]
    let s = SensorDescription.unknown(info: info, controlInfo: controls)
    #expect(s.model == "imx999" && s.product == "unknown")
    let entry = try database().sensor(model: "imx708")
    #expect(s.assumed == true && entry != nil && entry?.assumed == nil)
    #expect(s.analogueGainMaximum == 8 && s.exposureMaximumMicroseconds == 5_000_000)
    #expect(s.pixelSizeMicrometres == 2.0)
    #expect(s.lens == nil && s.colourCalibration == nil && s.afSystem == "none")
    #expect(s.notes?.first?.contains("unknown sensor") == true)
    #expect(try database().sensor(model: "imx999") == nil)
    // Every generic size below the assumed mode is offered, however much smaller (vimc, USB cameras).
    #expect(FormatTable.formats(sensor: s, controlInfo: controls).map(\.size) == [
        PixelSize(width: 640, height: 480), PixelSize(width: 1280, height: 720), PixelSize(width: 1920, height: 1080),
        PixelSize(width: 2000, height: 1500)])
}

@Test func aBrokenDatabaseFileIsAnErrorNamingIt() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sensors-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    try Data("{\"model\": 3}".utf8).write(to: dir.appendingPathComponent("bad.json"))
    #expect {
        try SensorDatabase(directory: dir)
    } throws: { error in
        (error as? CameraError)?.message.contains("bad.json") == true
    }
}

@Test func aCameraMissingFromTheDatabaseStillStreamsAsUnknown() throws {
    let loop = ManualEventLoop()
    let provider = SimulatedCameraProvider(loop: loop, sensor: try sensor("imx296"))
    let device = try provider.open(id: provider.cameraID)
    let db = SensorDatabase([try sensor("imx708")])
    let described = db.describe(device)
    #expect(described.product == "unknown" && described.model == "imx296")
    let controller = try CameraController(device: device, sensor: described, loop: loop)
    let format = try #require(controller.formats.last)
    // One assumed full-array mode, scaled by the pipeline to the generic sizes below it.
    #expect(controller.formats.map(\.label) == ["640x480@60", "1280x720@60", "1456x1088@60"])
    #expect(format.size == PixelSize(width: 1456, height: 1088) && format.horizontalFieldOfViewDegrees == nil)
    #expect(abs(format.maximumFps - 60.38) < 0.1)  // from FrameDurationLimits
    #expect(controller.afSystem == "none")
    #expect(controller.whiteBalanceModel.usesCalibration == false)
    try controller.startStreaming()
    try controller.setExposure(.custom(durationMicroseconds: 10_000, iso: 200))
    loop.advance(by: .milliseconds(300))
    #expect(controller.latest?.exposureDurationMicroseconds == 10_000)
}

import Foundation
import Hardware
import ManualLoop
import SimulatedHardware
import Testing
import Camera

/// The wiring the supervisor does, as reported: board → provider → device → controller.
@Test func wiringExampleFromABoardDescription() throws {
    let boardJSON = """
    {"name": "sim", "summary": "simulated board", "camera": {"backend": "sim", "sensor": "imx708", "seed": 42},
     "imu": {"backend": "sim"}, "gpio": {"backend": "sim"}, "display": {"backend": "none"}}
    """
    let board = try JSONDecoder().decode(BoardDescription.self, from: Data(boardJSON.utf8))
    let loop = ManualEventLoop()
    let database = try SensorDatabase(directory: sensorDirectory)
    let provider = try SimulatedCameraProvider(loop: loop, board: board, sensors: Array(database.sensors.values),
                                               motion: StillMotion())
    let device = try provider.open(id: provider.cameras()[0].id)
    let controller = try CameraController(device: device, sensor: database.describe(device), loop: loop)
    try controller.selectFormat("1920x1080@30")
    try controller.startStreaming()
    try controller.setExposure(.custom(durationMicroseconds: 16_667, iso: 400))
    loop.advance(by: .milliseconds(500))
    let frame = try #require(controller.latest)
    #expect(frame.exposureDurationMicroseconds == 16_667)
    #expect(frame.iso == 400)
    #expect(controller.activeFormat.fixedFps == 1e6 / 33_333)

    // A board naming a sensor the database lacks is a clear error.
    var other = board
    other.camera.sensor = "imx999"
    #expect(throws: HardwareError.self) {
        try SimulatedCameraProvider(loop: loop, board: other, sensors: Array(database.sensors.values))
    }
}

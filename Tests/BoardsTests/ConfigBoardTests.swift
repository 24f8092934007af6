import Boards
import Foundation
import Hardware
import Lifecycle
import Testing
@testable import Startup
@testable import Supervisor

/// The repository's `board/` directory, found from this file's path.
private let boardDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("board").path

/// The repository's boards, as the supervisor finds them (files first, then embedded ones).
private let catalog = BoardCatalog(directories: [boardDirectory])

/// The real boards: those detected from the device tree (sim and vboard have no model strings).
private func raspberryPiBoards() throws -> [BoardDescription] {
    try catalog.boards().filter { $0.deviceTreeModels != nil }
}

@Suite struct ConfigBoards {
    @Test func everyBoardDecodesAndNamesTheRequiredDevices() throws {
        let boards = try raspberryPiBoards()
        #expect(boards.map(\.name) == ["rpi4", "rpi5", "rpizero2w"])
        for board in boards {
            #expect(!(board.deviceTreeModels ?? []).isEmpty, "\(board.name): deviceTreeModels")
            #expect(board.camera.backend == "libcamera", "\(board.name)")
            #expect(board.camera.connector?.isEmpty == false, "\(board.name): camera connector")
            #expect(board.imu.bus?.hasPrefix("/dev/i2c-") == true, "\(board.name): IMU bus")
            #expect(board.imu.address.map { (0x08...0x77).contains($0) } == true, "\(board.name): IMU address")
            #expect(board.imu.dataReady?.name != nil, "\(board.name): data-ready line")
            #expect(board.gpio.backend == "gpiod", "\(board.name)")
            for (role, line) in [("shutter", board.gpio.shutter), ("halfPress", board.gpio.halfPress), ("led", board.gpio.led)] {
                #expect(line?.name?.hasPrefix("GPIO") == true, "\(board.name): \(role) line")
            }
            #expect(board.gpio.shutter?.activeLow == true && board.gpio.shutter?.bias == .pullUp)
            #expect(board.console?.device?.hasPrefix("/dev/tty") == true, "\(board.name): console device")
            // No line is used twice, and none collides with I2C1 (GPIO2/3) or the UART (GPIO14/15).
            let lines = [board.gpio.shutter, board.gpio.halfPress, board.gpio.led, board.imu.dataReady].compactMap { $0?.name }
            #expect(Set(lines).count == lines.count, "\(board.name): \(lines)")
            #expect(Set(lines).isDisjoint(with: ["GPIO2", "GPIO3", "GPIO14", "GPIO15"]), "\(board.name)")
        }
    }

    @Test func serialConsolePerBoard() throws {
        let boards = try raspberryPiBoards()
        let consoles = Dictionary(uniqueKeysWithValues: boards.map { ($0.name, $0.console?.device) })
        // Pi 5: the header UART is a PL011 (ttyAMA0; ttyAMA10 is the debug connector). Pi 4 and
        // Zero 2 W with Bluetooth on: the header gets the mini UART, ttyS0.
        #expect(consoles == ["rpi5": "/dev/ttyAMA0", "rpi4": "/dev/ttyS0", "rpizero2w": "/dev/ttyS0"])
    }

    @Test func configFragmentsAndUdevRulesCoverEveryBoard() throws {
        let boards = try raspberryPiBoards()
        for board in boards {
            let path = boardDirectory + "/config/\(board.name).txt"
            let text = try String(contentsOfFile: path, encoding: .utf8)
            let active = text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
            for required in ["camera_auto_detect=1", "dtparam=i2c_arm=on", "enable_uart=1"] {
                #expect(active.contains(required), "\(path): \(required)")
            }
            #expect(text.contains("dtoverlay=mpu6050"), "\(path): IMU overlay (optional, commented)")
        }
        let rules = try String(contentsOfFile: boardDirectory + "/udev/99-tripod.rules", encoding: .utf8)
        for needle in ["gpiochip*\", GROUP=\"gpio\"", "i2c-[0-9]*\", GROUP=\"i2c\"", "iio:device*", "video4linux", "SUBSYSTEM==\"media\"",
                       "renderD*\", GROUP=\"render\"", "GROUP=\"dialout\""] {
            #expect(rules.contains(needle), "udev rules: \(needle)")
        }
    }

    @Test func detectionFromDeviceTreeModelStrings() throws {
        let boards = try raspberryPiBoards()
        func detect(_ raw: String) -> String? {
            BoardDetection.match(model: BoardDetection.model(fromProperty: Array(raw.utf8)), in: boards)?.name
        }
        #expect(detect("Raspberry Pi 5 Model B Rev 1.0\0") == "rpi5")
        #expect(detect("Raspberry Pi 4 Model B Rev 1.5\0") == "rpi4")
        #expect(detect("Raspberry Pi 400 Rev 1.0\0") == "rpi4")
        #expect(detect("Raspberry Pi Zero 2 W Rev 1.0\0") == "rpizero2w")
        #expect(detect("Raspberry Pi Zero W Rev 1.1\0") == nil)
        #expect(detect("Raspberry Pi 3 Model B Plus Rev 1.3\0") == nil)
        #expect(detect("Raspberry Pi Compute Module 4 Rev 1.0\0") == nil)
        #expect(detect("") == nil)
        #expect(BoardDetection.model(fromProperty: Array("Raspberry Pi 5 Model B Rev 1.0\0\0".utf8)) == "Raspberry Pi 5 Model B Rev 1.0")
    }

    @Test func longestPrefixWins() throws {
        var generic = try catalog.board(boardDirectory + "/boards/rpi4.json")
        generic.name = "any-pi"
        generic.deviceTreeModels = ["Raspberry Pi"]
        let boards = try raspberryPiBoards() + [generic]
        #expect(BoardDetection.match(model: "Raspberry Pi 5 Model B Rev 1.1", in: boards)?.name == "rpi5")
        #expect(BoardDetection.match(model: "Raspberry Pi 3 Model B Rev 1.2", in: boards)?.name == "any-pi")
    }

    @Test func catalogListsEveryBoardOnce() throws {
        #expect(try catalog.boards().map(\.name) == ["rpi4", "rpi5", "rpizero2w", "sim", "sim-small", "vboard", "vboard-iio"])
        // With no directory, only the embedded boards.
        #expect(try BoardCatalog(directories: []).boards().map(\.name) == ["sim", "sim-small"])
    }

    @Test func detectReadsTheModelFileAndExplainsMisses() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tripod-dt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let model = dir.appendingPathComponent("model")
        try Data("Raspberry Pi Zero 2 W Rev 1.0\0".utf8).write(to: model)
        #expect(try BoardDetection.detect(catalog: catalog, modelPath: model.path).name == "rpizero2w")
        #expect(try TripodMain.detectBoardName(catalog: catalog, modelPath: model.path) == "rpizero2w")

        try Data("Pine64 RockPro64\0".utf8).write(to: model)
        // A device tree naming an unknown board stops the start with a reason; it never falls back to sim.
        #expect(throws: StartupError.self) { try TripodMain.detectBoardName(catalog: catalog, modelPath: model.path) }
        do { _ = try BoardDetection.detect(catalog: catalog, modelPath: model.path); Issue.record("expected an error") }
        catch let error as HardwareError {
            #expect(error.kind == .unsupported)
            #expect(error.message == "board \"Pine64 RockPro64\" (\(model.path)) matches none of: rpi4, rpi5, rpizero2w")
        }
        let absent = dir.appendingPathComponent("absent").path
        #expect(throws: HardwareError.self) { try BoardDetection.detect(catalog: catalog, modelPath: absent) }
        // No device tree at all (a PC, CI): the simulated board.
        #expect(try TripodMain.detectBoardName(catalog: catalog, modelPath: absent) == "sim")
    }

    @Test func aBrokenBoardFileIsNamed() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tripod-boards-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("boards"), withIntermediateDirectories: true)
        try Data("{\"name\": \"x\"}".utf8).write(to: dir.appendingPathComponent("boards/x.json"))
        let broken = BoardCatalog(directories: [dir.path])
        do { _ = try broken.boards(); Issue.record("expected an error") }
        catch {
            #expect(error.message.hasPrefix("board \(dir.path)/boards/x.json is not valid: missing "))
        }
        // Detection reports the broken file too, rather than skipping it.
        let model = dir.appendingPathComponent("model")
        try Data("Raspberry Pi 5 Model B Rev 1.0\0".utf8).write(to: model)
        #expect(throws: StartupError.self) { try BoardDetection.detect(catalog: broken, modelPath: model.path) }
    }
}

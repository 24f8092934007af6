import Foundation
import Testing
@testable import Hardware

/// The board files in board/boards decode, and the virtual board's file agrees with the wiring that
/// tools/vboard sets up in the guest (tools/vboard.d/guest/board.conf).
@Suite struct BoardFilesTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func board(_ name: String) throws -> BoardDescription {
        let data = try Data(contentsOf: repository.appendingPathComponent("board/boards/\(name).json"))
        return try JSONDecoder().decode(BoardDescription.self, from: data)
    }

    /// `KEY=value` lines of the guest's board.conf (shell syntax, comments after `#`).
    static func guestConfiguration() throws -> [String: String] {
        let text = try String(contentsOf: repository.appendingPathComponent("tools/vboard.d/guest/board.conf"), encoding: .utf8)
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "="), !line.hasPrefix("#"), !line.hasPrefix(" ") else { continue }
            var value = line[line.index(after: equals)...]
            if let hash = value.firstIndex(of: "#") { value = value[..<hash] }
            values[String(line[..<equals])] = value.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return values
    }

    @Test func everyBoardFileDecodes() throws {
        let directory = Self.repository.appendingPathComponent("board/boards")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }
        #expect(names.contains("vboard.json"))
        for file in names {
            let board = try Self.board(String(file.dropLast(5)))
            #expect(board.name + ".json" == file, "board \(file) names itself \(board.name)")
        }
    }

    @Test func virtualBoardUsesTheRealBackends() throws {
        let board = try Self.board("vboard")
        #expect(board.camera.backend == "libcamera")
        #expect(board.gpio.backend == "gpiod")
        #expect(board.imu.backend == "i2c")
        #expect(board.display.backend == "drm")
        #expect(board.console?.device == "/dev/ttyS1")
    }

    @Test func iioVariantReadsTheChipTheKernelDriverOwns() throws {
        let board = try Self.board("vboard-iio")
        let guest = try Self.guestConfiguration()
        #expect(board.imu.backend == "iio")
        #expect(board.imu.address == Int(try #require(guest["IIO_ADDR"]).dropFirst(2), radix: 16))
        #expect(board.imu.bus == (try Self.board("vboard")).imu.bus)
    }

    @Test func virtualBoardMatchesTheGuestWiring() throws {
        let board = try Self.board("vboard")
        let guest = try Self.guestConfiguration()
        let imuAddress = try #require(guest["IMU_ADDR"]).dropFirst(2)
        #expect(board.imu.address == Int(imuAddress, radix: 16))
        let lineNames = try #require(guest["GPIO_NAMES"]).split(separator: " ").map(String.init)
        for line in [board.gpio.shutter, board.gpio.halfPress, board.gpio.led, board.gpio.pir] {
            let name = try #require(line?.name)
            #expect(lineNames.contains(name), "line \(name) is not set up by the guest (GPIO_NAMES)")
        }
    }
}

import Foundation

/// The camera's serial number for the EXIF (BodySerialNumber; DNG CameraSerialNumber), unique to
/// the rig and the same across restarts: the board's serial (the device tree's `serial-number`,
/// the SoC's on a Raspberry Pi; else /etc/machine-id) and the camera's index. The simulated board
/// has none of its own: it takes a hash of the rig's state directory, one per rig process.
enum BodySerial {
    static func read(simulated: Bool, stateDirectory: String, cameraIndex: Int) -> String? {
        let board: String?
        if simulated {
            let path = URL(fileURLWithPath: stateDirectory).standardizedFileURL.path
            board = "SIM" + String(fnv1a(Array(path.utf8)), radix: 16, uppercase: true)
        } else {
            board = ["/sys/firmware/devicetree/base/serial-number", "/proc/device-tree/serial-number", "/etc/machine-id"]
                .lazy.compactMap(firstLine).first
        }
        return board.map { "\($0)-\(cameraIndex)" }
    }

    /// The file's first line, printable ASCII only, 1 to 64 characters; nil otherwise.
    static func firstLine(_ path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path), data.count <= 4096 else { return nil }
        let text = String(decoding: data.prefix { $0 != 0 && $0 != 0x0A }, as: UTF8.self).trimmingCharacters(in: .whitespaces)
        guard (1...64).contains(text.utf8.count), text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        return text
    }

    /// FNV-1a, 64 bits: a stable hash (Swift's own is seeded per process).
    static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        bytes.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }
}

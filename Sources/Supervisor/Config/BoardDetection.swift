import Foundation
import Hardware

/// Finds the board description for the machine we run on, from `/proc/device-tree/model`.
public enum BoardDetection {
    /// Where the kernel exposes the board's model string (a NUL-terminated device-tree property).
    public static let deviceTreeModelPath = "/proc/device-tree/model"

    /// The model string from raw property bytes: trailing NULs and whitespace removed
    /// ("Raspberry Pi 5 Model B Rev 1.0\0" → "Raspberry Pi 5 Model B Rev 1.0").
    public static func model(fromProperty bytes: [UInt8]) -> String {
        var end = bytes.endIndex
        while end > bytes.startIndex, bytes[end - 1] == 0 || bytes[end - 1] == 0x20 || bytes[end - 1] == 0x0A {
            end -= 1
        }
        let body = bytes[..<end].map { $0 == 0 ? UInt8(ascii: " ") : $0 }
        return String(decoding: body, as: UTF8.self)
    }

    /// Reads the model string; nil when there is no device tree (a PC, a VM without one).
    public static func readModel(path: String = deviceTreeModelPath) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let model = model(fromProperty: [UInt8](data))
        return model.isEmpty ? nil : model
    }

    /// The board whose `deviceTreeModels` has the longest entry that `model` starts with; nil when
    /// none matches.
    public static func match(model: String, in boards: [BoardDescription]) -> BoardDescription? {
        var best: (board: BoardDescription, length: Int)?
        for board in boards {
            for prefix in board.deviceTreeModels ?? [] where !prefix.isEmpty && model.hasPrefix(prefix) {
                if prefix.count > best?.length ?? 0 { best = (board, prefix.count) }
            }
        }
        return best?.board
    }

    /// Decodes every `*.json` in `directory` (`board/boards`, or `/usr/share/tripod/boards` when
    /// installed), sorted by file name. Throws naming the file that does not decode.
    public static func loadBoards(directory: String) throws -> [BoardDescription] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw HardwareError(.notFound, "\(directory): cannot list board descriptions: \(error.localizedDescription)")
        }
        return try names.filter { $0.hasSuffix(".json") }.sorted().map { name in
            try loadBoard(path: directory + "/" + name)
        }
    }

    /// Decodes one board description file.
    public static func loadBoard(path: String) throws -> BoardDescription {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw HardwareError(.notFound, "\(path): cannot read board description")
        }
        do {
            return try JSONDecoder().decode(BoardDescription.self, from: data)
        } catch {
            throw HardwareError(.invalidArgument, "\(path): not a valid board description: \(error)")
        }
    }

    /// Detects the board: reads the model at `modelPath` and matches it. Throws, naming the model
    /// and the boards known, when nothing matches (pass `--board` explicitly then).
    public static func detect(in boards: [BoardDescription], modelPath: String = deviceTreeModelPath) throws -> BoardDescription {
        guard let model = readModel(path: modelPath) else {
            throw HardwareError(.notFound, "\(modelPath): no device-tree model; name the board explicitly")
        }
        guard let board = match(model: model, in: boards) else {
            let known = boards.map(\.name).joined(separator: ", ")
            throw HardwareError(.unsupported, "board \"\(model)\" (\(modelPath)) matches none of: \(known)")
        }
        return board
    }
}

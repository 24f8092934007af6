import Foundation
import Hardware

/// Finds the board description for the machine we run on, from `/proc/device-tree/model`.
/// Loading descriptions is `BoardCatalog`'s job; this is only the device-tree model logic.
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

    /// Detects the board: reads the model at `modelPath` and matches it against every board in
    /// `catalog` (`BoardCatalog.boards()`). Throws the catalog's `StartupError` when a description does
    /// not decode, and a `HardwareError` when there is no model (`.notFound`) or no board matches it
    /// (`.unsupported`, naming the model and the boards that have model strings): pass `--board` then.
    public static func detect(catalog: BoardCatalog, modelPath: String = deviceTreeModelPath) throws -> BoardDescription {
        guard let model = readModel(path: modelPath) else {
            throw HardwareError(.notFound, "\(modelPath): no device-tree model; name the board explicitly")
        }
        let boards = try catalog.boards()
        guard let board = match(model: model, in: boards) else {
            let known = boards.filter { !($0.deviceTreeModels ?? []).isEmpty }.map(\.name).joined(separator: ", ")
            throw HardwareError(.unsupported, "board \"\(model)\" (\(modelPath)) matches none of: \(known)")
        }
        return board
    }
}

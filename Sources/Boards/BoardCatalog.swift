import Foundation
import Hardware
import Lifecycle

/// Finds board and sensor descriptions: files named on the command line, the board directory
/// (`board/` in a checkout, `/usr/share/tripod/board` when installed, or `$TRIPOD_BOARD_DIR`), and
/// the descriptions embedded in the binary so that `tripod run` works anywhere.
public struct BoardCatalog: Sendable {
    /// Directories searched, in order; each holds `boards/` and `sensors/`.
    public var directories: [String]

    public init(directories: [String]) { self.directories = directories }

    /// The default search path for this process.
    public static func standard(environment: [String: String] = ProcessInfo.processInfo.environment,
                                executablePath: String = CommandLine.arguments.first ?? "") -> BoardCatalog {
        var dirs: [String] = []
        if let d = environment["TRIPOD_BOARD_DIR"], !d.isEmpty { dirs.append(d) }
        // A checkout: walk up from the executable (.build/<config>/tripod) to a folder holding board/boards.
        var url = URL(fileURLWithPath: executablePath).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<5 {
            let candidate = url.appendingPathComponent("board")
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("boards").path) {
                dirs.append(candidate.path)
                break
            }
            url.deleteLastPathComponent()
        }
        dirs.append("/usr/share/tripod/board")
        return BoardCatalog(directories: dirs)
    }

    /// The names of every board found (files and embedded), sorted.
    public func boardNames() -> [String] { names(in: "boards", embedded: EmbeddedDescriptions.boards.keys) }

    /// Every board found (files and embedded), loaded as `board(_:)` loads each name, sorted by
    /// name. Throws the first description that does not decode, naming its file and field.
    public func boards() throws(StartupError) -> [BoardDescription] {
        var boards: [BoardDescription] = []
        for name in boardNames() { boards.append(try board(name)) }
        return boards
    }

    /// The models of every sensor description found (files and embedded).
    public func sensorModels() -> [String] { names(in: "sensors", embedded: EmbeddedDescriptions.sensors.keys) }

    /// The embedded names plus every `<name>.json` in `subdirectory` of each directory, sorted.
    private func names(in subdirectory: String, embedded: some Sequence<String>) -> [String] {
        var names = Set(embedded)
        for dir in directories {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: dir + "/" + subdirectory)) ?? []
            for f in files where f.hasSuffix(".json") { names.insert(String(f.dropLast(5))) }
        }
        return names.sorted()
    }

    /// Loads a board by name ("sim", "rpi5") or by path (anything with a "/" or ending in .json).
    public func board(_ nameOrPath: String) throws(StartupError) -> BoardDescription {
        if nameOrPath.contains("/") || nameOrPath.hasSuffix(".json") {
            guard let data = FileManager.default.contents(atPath: nameOrPath) else {
                throw StartupError("cannot read board file \(nameOrPath)")
            }
            return try decodeBoard(data, source: nameOrPath)
        }
        for dir in directories {
            let path = "\(dir)/boards/\(nameOrPath).json"
            if let data = FileManager.default.contents(atPath: path) { return try decodeBoard(data, source: path) }
        }
        if let embedded = EmbeddedDescriptions.boards[nameOrPath] {
            return try decodeBoard(Data(embedded.utf8), source: "embedded board \(nameOrPath)")
        }
        throw StartupError("unknown board \"\(nameOrPath)\"; known boards: \(boardNames().joined(separator: ", "))")
    }

    /// Loads a sensor description by model ("imx708"); nil when the database has no entry.
    public func sensor(_ model: String) throws(StartupError) -> SensorDescription? {
        let key = model.lowercased()
        for dir in directories {
            let path = "\(dir)/sensors/\(key).json"
            if let data = FileManager.default.contents(atPath: path) { return try decodeSensor(data, source: path) }
        }
        if let embedded = EmbeddedDescriptions.sensors[key] {
            return try decodeSensor(Data(embedded.utf8), source: "embedded sensor \(key)")
        }
        return nil
    }

    private func decodeBoard(_ data: Data, source: String) throws(StartupError) -> BoardDescription {
        do { return try JSONDecoder().decode(BoardDescription.self, from: data) }
        catch { throw StartupError("board \(source) is not valid: \(describe(error))") }
    }

    private func decodeSensor(_ data: Data, source: String) throws(StartupError) -> SensorDescription {
        do { return try JSONDecoder().decode(SensorDescription.self, from: data) }
        catch { throw StartupError("sensor \(source) is not valid: \(describe(error))") }
    }
}

/// Says which field of a JSON document was wrong, in one line.
func describe(_ error: any Error) -> String {
    guard let e = error as? DecodingError else { return "\(error)" }
    func path(_ keys: [any CodingKey]) -> String { keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".") }
    switch e {
    case .keyNotFound(let key, let ctx): return "missing \(path(ctx.codingPath + [key]))"
    case .typeMismatch(_, let ctx): return "wrong type at \(path(ctx.codingPath))"
    case .valueNotFound(_, let ctx): return "missing value at \(path(ctx.codingPath))"
    case .dataCorrupted(let ctx): return ctx.codingPath.isEmpty ? "not JSON" : "bad value at \(path(ctx.codingPath))"
    @unknown default: return "\(error)"
    }
}

import Foundation
import Hardware

/// The sensor database: every `*.json` in a directory (normally `board/sensors/`), decoded as
/// `SensorDescription` and keyed by lower-case libcamera model name.
public struct SensorDatabase: Sendable {
    /// Entries by model ("imx708").
    public private(set) var sensors: [String: SensorDescription]

    /// An in-memory database (tests, built-ins).
    public init(_ sensors: [SensorDescription]) {
        var byModel: [String: SensorDescription] = [:]
        for sensor in sensors { byModel[sensor.model.lowercased()] = sensor }
        self.sensors = byModel
    }

    /// Reads every `*.json` file in `directory`. A file that does not decode is an error naming
    /// the file and the decoding problem (never skipped silently).
    public init(directory: URL) throws {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw CameraError.database("sensor database \(directory.path): cannot list directory: \(error.localizedDescription)")
        }
        var entries: [SensorDescription] = []
        for name in names.sorted() where name.hasSuffix(".json") {
            let url = directory.appendingPathComponent(name)
            do {
                let data = try Data(contentsOf: url)
                entries.append(try JSONDecoder().decode(SensorDescription.self, from: data))
            } catch {
                throw CameraError.database("sensor database \(url.path): \(error)")
            }
        }
        self.init(entries)
    }

    /// The entry for a libcamera model name (case-insensitive), or nil.
    public func sensor(model: String) -> SensorDescription? { sensors[model.lowercased()] }

    /// The entry for an opened camera, or `SensorDescription.unknown` built from what the camera
    /// reports when the database has no entry for its model.
    public func describe(_ camera: any CameraDevice) -> SensorDescription {
        sensor(model: camera.info.model) ?? .unknown(info: camera.info, controlInfo: camera.controlInfo)
    }
}

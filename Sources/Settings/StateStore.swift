import Foundation
import Hardware

/// Persisted state (`/var/lib/tripod`): one JSON file per kind of state, written atomically.
///
/// Every save goes through `Storage.writeAtomically` (temp file, fsync, rename, fsync of the
/// directory), so `kill -9` or a power cut in the middle of a save leaves the previous file or the
/// new one, never a torn one. Works on any `Storage`: `PosixStorage` (LinuxHardware) on the
/// device, an in-memory one in tests.
///
/// Loop-confined like the supervisor that owns it.
public final class StateStore {
    /// Conventional file names for the supervisor's state.
    public enum File {
        /// The last manual settings (console `save`).
        public static let settings = "settings.json"
        /// Bracket presets.
        public static let presets = "presets.json"
        /// IMU calibration (gyro bias, accelerometer offsets).
        public static let imuCalibration = "imu-calibration.json"
        /// The running time-lapse: plan, start, next shot, ramp (`timelapse start`), so a restart resumes it.
        public static let timelapse = "timelapse.json"
        /// Capture sequence counters.
        public static let counters = "counters.json"
        /// The ids of the fleet's MQTT commands already carried out (bounded), so none runs twice.
        public static let fleetCommandIDs = "fleet-command-ids.json"
    }

    private let storage: any Storage

    public init(storage: any Storage) {
        self.storage = storage
    }

    /// Encodes `value` as JSON (sorted keys, readable) and writes it atomically to `name`.
    public func save<Value: Encodable>(_ value: Value, as name: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        let data: Data
        do {
            data = try encoder.encode(value)
        } catch {
            throw StateStoreError(file: describe(name), reason: "cannot encode: \(error)")
        }
        try storage.writeAtomically([UInt8](data) + [0x0A], to: name)
    }

    /// Decodes the state in `name`; nil when there is none yet. Throws `StateStoreError` (naming the
    /// file) when it is there but unreadable or not valid for `type`.
    public func load<Value: Decodable>(_ type: Value.Type, from name: String) throws -> Value? {
        guard storage.fileExists(name) else { return nil }
        let bytes = try storage.read(name)
        do {
            return try JSONDecoder().decode(type, from: Data(bytes))
        } catch let error as DecodingError {
            throw StateStoreError(file: describe(name), reason: Self.explain(error))
        }
    }

    /// Deletes the state in `name` (console `reset`); nothing happens when there is none.
    public func reset(_ name: String) throws {
        guard storage.fileExists(name) else { return }
        try storage.remove(name)
    }

    private func describe(_ name: String) -> String { storage.rootDescription + "/" + name }

    private static func explain(_ error: DecodingError) -> String {
        switch error {
        case .dataCorrupted(let context):
            return "not valid JSON (\(context.debugDescription))"
        case .keyNotFound(let key, _):
            return "missing \"\(key.stringValue)\""
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return "wrong type at \"\(path)\": \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}

/// Persisted state that could not be read or written.
public struct StateStoreError: Error, CustomStringConvertible {
    /// The file, e.g. "/var/lib/tripod/settings.json".
    public var file: String
    public var reason: String
    public var description: String { "\(file): \(reason)" }
}

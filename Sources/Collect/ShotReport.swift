import Foundation
import Remote

/// A shot's report as its sender publishes it (retained on `tripod/<group>/<sender>/report`,
/// docs/fleet.md), reduced to what the collector uses; every name in it is checked.
public struct ShotReport: Sendable, Equatable {
    /// One rig's entry.
    public struct RigEntry: Sendable, Equatable {
        public var status: String?
        public var offsetMicroseconds: Double?
        public var clock: String?
        public var sync: String?
        /// The files its reply named (paths below its captures; no checksums: those are the rig's part's).
        public var files: [String] = []
        /// Its sidecar's path below its captures, as its reply named it.
        public var sidecar: String?
    }

    public let shot: String
    public let sender: String
    public let asked: [String]
    public let answered: [String]
    public let maximumSkewMicroseconds: Double?
    public let target: String?
    public let rigs: [String: RigEntry]

    /// Largest report read, bytes.
    static let maximumBytes = 1 << 20

    /// The report in `payload`, or nil when it is not one (or names an unsafe rig or shot).
    public static func parse(_ payload: [UInt8]) -> ShotReport? {
        guard payload.count <= maximumBytes,
              let object = (try? JSONSerialization.jsonObject(with: Data(payload))) as? [String: Any],
              let shot = object["shot"] as? String, SafeName.isValid(shot),
              let sender = object["sender"] as? String, SafeName.isValid(sender, maximumLength: 64) else { return nil }
        let names: (String) -> [String] = { key in
            ((object[key] as? [Any]) ?? []).compactMap { $0 as? String }.filter { SafeName.isValid($0, maximumLength: 64) }
        }
        var rigs: [String: RigEntry] = [:]
        for (name, value) in (object["rigs"] as? [String: Any]) ?? [:] where SafeName.isValid(name, maximumLength: 64) {
            let entry = value as? [String: Any] ?? [:]
            rigs[name] = RigEntry(status: entry["status"] as? String, offsetMicroseconds: (entry["offsetMicroseconds"] as? NSNumber)?.doubleValue,
                                  clock: entry["clock"] as? String, sync: entry["sync"] as? String,
                                  files: ((entry["files"] as? [Any]) ?? []).compactMap { $0 as? String }.filter(SafeName.isValidCapturePath),
                                  sidecar: (entry["sidecar"] as? String).flatMap { SafeName.isValidCapturePath($0) ? $0 : nil })
        }
        return ShotReport(shot: shot, sender: sender, asked: names("asked"), answered: names("answered"),
                          maximumSkewMicroseconds: (object["maximumSkewMicroseconds"] as? NSNumber)?.doubleValue,
                          target: object["target"] as? String, rigs: rigs)
    }

    /// The shot's instant from its id (`<rig>-<13 digits>[-n]`), ms since 1970; 0 when it names none.
    public var instantMilliseconds: Int64 { Self.instantMilliseconds(of: shot) }

    public static func instantMilliseconds(of shot: String) -> Int64 { SafeName.shotInstantMilliseconds(shot) ?? 0 }
}

/// A rig's own part of a shot, as its remote answers `GET /api/shots/<id>`: the sidecar and every
/// file it lists, with size and SHA-256.
public struct RigPart: Sendable, Equatable {
    public struct File: Sendable, Equatable {
        /// Relative to the rig's captures (the download's path).
        public let path: String
        public let bytes: Int
        public let sha256: String
        public var name: String { String(path.split(separator: "/").last ?? "") }
    }

    public let sidecar: File
    public let files: [File]
    public let status: String?
    public let offsetMicroseconds: Double?
    public let clock: String?
    public let sync: String?

    /// Largest file the collector accepts, bytes (a DNG of a 64 MP sensor is under 200 MB).
    static let maximumFileBytes = 4 << 30

    /// The part in `payload`, or nil when it is not one; a file with an unsafe path, a size out
    /// of range or a malformed checksum makes the whole part refused.
    public static func parse(_ payload: [UInt8]) -> RigPart? {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(payload))) as? [String: Any],
              let sidecar = file(object["sidecar"]),
              let list = object["files"] as? [Any], list.count <= 1024 else { return nil }
        var files: [File] = []
        for item in list {
            guard let file = file(item) else { return nil }
            files.append(file)
        }
        let names = Set(([sidecar] + files).map(\.name))
        guard names.count == files.count + 1 else { return nil }
        return RigPart(sidecar: sidecar, files: files, status: object["status"] as? String,
                       offsetMicroseconds: (object["offsetMicroseconds"] as? NSNumber)?.doubleValue,
                       clock: object["clock"] as? String, sync: object["sync"] as? String)
    }

    private static func file(_ value: Any?) -> File? {
        guard let object = value as? [String: Any], let path = object["path"] as? String, SafeName.isValidCapturePath(path),
              let bytes = (object["bytes"] as? NSNumber)?.intValue, (0...maximumFileBytes).contains(bytes),
              let sha256 = object["sha256"] as? String, SafeName.isSHA256(sha256) else { return nil }
        return File(path: path, bytes: bytes, sha256: sha256)
    }
}

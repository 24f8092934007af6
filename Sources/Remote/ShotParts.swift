import Console
import Foundation
import Media

/// `GET /api/shots/<id>`: this rig's own part of a fleet shot, found from its sidecar, so that a
/// collector whose copy of the shot's report lacks this rig (its reply was lost) still collects it
/// (docs/collect.md). The answer names the sidecar and every file it lists with size and SHA-256.
extension CaptureFiles {
    /// Longest sidecar read, bytes.
    public static let maximumSidecarBytes = 4 << 20

    /// The JSON answer for shot `id`, or nil when no sidecar below the root records it. Only
    /// sidecars written from 10 s before the shot's instant on are read (the list is newest first).
    public func shotPart(_ id: String) -> String? {
        let since = SafeName.shotInstantMilliseconds(id).map { Double($0) / 1000 - 10 } ?? 0
        for entry in list() where entry.modified >= since {
            let name = (entry.path as NSString).lastPathComponent
            guard name.hasPrefix("TRP_"), name.hasSuffix(".json"), entry.bytes <= UInt64(Self.maximumSidecarBytes),
                  let bytes = read(entry.path), let json = Self.shotPart(id, sidecarPath: entry.path, sidecarBytes: bytes) else { continue }
            return json
        }
        return nil
    }

    /// The part of shot `id` that the sidecar at `sidecarPath` (below the captures) with content
    /// `sidecarBytes` describes, as JSON; nil when it is not a sidecar of that shot. The rig answers
    /// with it, and the collector makes the same answer from a sidecar it fetched itself.
    public static func shotPart(_ id: String, sidecarPath: String, sidecarBytes bytes: [UInt8]) -> String? {
        guard bytes.count <= maximumSidecarBytes, let sidecar = try? BracketSidecar.decode(bytes), let shot = sidecar.shot, shot.id == id,
              let sidecarHash = try? SHA256.hexDigest(bytes) else { return nil }
        let folder = (sidecarPath as NSString).deletingLastPathComponent
        let files = sidecar.frames.flatMap(\.files).map { file in
            "{\"path\":\(ReplyFormatter.jsonString(folder.isEmpty ? file.name : folder + "/" + file.name)),\"bytes\":\(file.bytes),\"sha256\":\(ReplyFormatter.jsonString(file.sha256))}"
        }
        var fields = [
            "\"shot\":\(ReplyFormatter.jsonString(id))",
            "\"status\":\(ReplyFormatter.jsonString(sidecar.result.status.rawValue))",
            "\"sidecar\":{\"path\":\(ReplyFormatter.jsonString(sidecarPath)),\"bytes\":\(bytes.count),\"sha256\":\(ReplyFormatter.jsonString(sidecarHash))}",
            "\"files\":[" + files.joined(separator: ",") + "]",
            "\"clock\":\(ReplyFormatter.jsonString(shot.clock))",
        ]
        if let offset = shot.offsetMicroseconds { fields.append("\"offsetMicroseconds\":\(offset)") }
        if let sync = shot.sync { fields.append("\"sync\":\(ReplyFormatter.jsonString(sync))") }
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// The whole file at `relative` (opened as a download is: inside the root, no symlink), up to
    /// `maximumSidecarBytes`; nil when it cannot be read.
    func read(_ relative: String) -> [UInt8]? {
        guard let file = try? open(relative) else { return nil }
        defer { close(file.descriptor) }
        guard file.size <= UInt64(Self.maximumSidecarBytes) else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(file.size))
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return -1 }
                return pread(file.descriptor, base + done, buffer.count - done, off_t(done))
            }
            guard n > 0 else { return nil }
            done += n
        }
        return bytes
    }
}

extension RemoteRouter {
    /// `GET /api/shots/<id>`: this rig's part of shot `id` (404 when it has none).
    func shotPart(_ id: String) -> HTTPResponse {
        guard SafeName.isValid(id) else { return .text(400, "not a shot id") }
        guard let json = captures.shotPart(id) else { return .text(404, "no part of shot \(id) on this rig") }
        return .json(200, json)
    }
}

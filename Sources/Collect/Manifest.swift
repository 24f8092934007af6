import Foundation

/// A shot's `manifest.json`: for every rig asked, each file's size, SHA-256 and state (`checked`,
/// `missing`, `corrupt`), where it is below DIR, and the rig's offset, clock and frame sync; the
/// shot's skew. From the shot's report and each rig's own part.
struct Manifest {
    let shot: String
    let report: ShotReport?
    let collection: ShotCollection
    let layout: CollectLayout

    func encoded() -> [UInt8] {
        var rigs: [String: Any] = [:]
        for (name, rig) in collection.rigs where rig.part != nil || rig.inReport || !rig.hasNoPart {
            let entry = report?.rigs[name]
            var object: [String: Any] = ["answered": rig.part != nil]
            if let status = rig.part?.status ?? entry?.status { object["status"] = status }
            if let offset = rig.part?.offsetMicroseconds ?? entry?.offsetMicroseconds { object["offsetMicroseconds"] = offset }
            object["clock"] = rig.part?.clock ?? entry?.clock ?? "unknown"
            object["frameSync"] = rig.part?.sync ?? entry?.sync ?? "off"
            if let error = rig.lastError, rig.part == nil { object["error"] = error }
            var files: [[String: Any]] = collection.files.filter { $0.rig == name }.map { job in
                ["name": job.file.name, "rigPath": job.file.path, "path": job.destination, "bytes": job.file.bytes,
                 "sha256": job.file.sha256, "state": job.state.rawValue]
            }
            if rig.part == nil {
                files = (entry?.files ?? []).map { ["rigPath": $0, "state": FileState.missing.rawValue] }
            }
            object["files"] = files
            rigs[name] = object
        }
        var top: [String: Any] = ["formatVersion": 1, "shot": shot, "layout": layout.rawValue, "rigs": rigs]
        if let report {
            top["sender"] = report.sender
            if let target = report.target { top["target"] = target }
            if let skew = report.maximumSkewMicroseconds { top["maximumSkewMicroseconds"] = skew }
            top["asked"] = report.asked
        } else {
            top["report"] = "none on the broker: every rig known was asked for its part"
        }
        let data = (try? JSONSerialization.data(withJSONObject: top, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return Array(data) + [0x0A]
    }
}

import Foundation
import Hardware

/// File names and folders: `YYYY-MM-DD/TRP_000123_01.dng`, `…_01.jpg`, `TRP_000123.json`.
///
/// A bracket takes one sequence number; its frames are numbered from 01. The next number is the
/// larger of (highest number found in any date folder + 1) and the persisted counter file, so it
/// survives restarts, a lost counter and files copied back; a name already present is never reused.
public struct CaptureNaming: Sendable {
    /// File-name prefix, "TRP".
    public var prefix: String
    /// The time zone of date folders and EXIF dates.
    public var timeZone: TimeZone
    /// The persisted counter, relative to the storage root.
    public static let counterPath = "sequence.txt"

    /// Naming with a file prefix and the zone of date folders.
    public init(prefix: String = "TRP", timeZone: TimeZone = .current) {
        self.prefix = prefix; self.timeZone = timeZone
    }

    /// "YYYY-MM-DD" of `date` in `timeZone`.
    public func folder(for date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let c = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0)
    }

    /// "TRP_000123".
    public func bracketID(_ sequence: Int) -> String { prefix + "_" + String(format: "%06d", sequence) }

    /// "TRP_000123_01.dng" for frame index 0.
    public func frameFileName(bracketID: String, frameIndex: Int, kind: FileRecord.Kind) -> String {
        bracketID + "_" + String(format: "%02d", frameIndex + 1) + (kind == .dng ? ".dng" : ".jpg")
    }

    /// "TRP_000123.json".
    public func sidecarName(bracketID: String) -> String { bracketID + ".json" }

    /// The sequence number in a file name of ours ("TRP_000123_01.dng" → 123), else nil.
    public func sequence(inFileName name: String) -> Int? {
        guard name.hasPrefix(prefix + "_") else { return nil }
        let digits = name.dropFirst(prefix.count + 1).prefix { $0.isASCII && $0.isNumber }
        return digits.count >= 6 ? Int(digits) : nil
    }

    /// True for "YYYY-MM-DD".
    public func isDateFolder(_ name: String) -> Bool {
        let parts = name.split(separator: "-")
        return name.count == 10 && parts.count == 3 && parts.allSatisfy { $0.allSatisfy(\.isNumber) }
    }

    /// The next free sequence number: max(highest found + 1, persisted counter, 1).
    public func nextSequence(in storage: any Storage) throws -> Int {
        var highest = 0
        for folder in try storage.list("") where isDateFolder(folder) {
            for name in try storage.list(folder) {
                if let n = sequence(inFileName: name) { highest = max(highest, n) }
            }
        }
        var counter = 1
        if storage.fileExists(CaptureNaming.counterPath) {
            let text = String(decoding: try storage.read(CaptureNaming.counterPath), as: UTF8.self)
            counter = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 1
        }
        return max(highest + 1, counter, 1)
    }
}

/// A rectangle of the frame watched for motion, in fractions of the frame (0…1 from the top left).
public struct MotionZone: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }

    /// The whole frame.
    public static let whole = MotionZone(x: 0, y: 0, width: 1, height: 1)

    /// "X,Y,W,H" with the numbers as short as they go ("0,0,1,1", "0.25,0.5,0.5,0.5").
    public var description: String { [x, y, width, height].map(Self.short).joined(separator: ",") }

    private static func short(_ v: Double) -> String {
        let rounded = (v * 10_000).rounded() / 10_000
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    /// Parses "X,Y,W,H" (fractions of the frame; the zone must lie inside it and not be empty).
    public static func parse(_ text: String) throws(TriggerSettingError) -> MotionZone {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingSpaces }
        guard parts.count == 4 else { throw TriggerSettingError("zone \"\(text)\": four numbers X,Y,W,H (fractions of the frame)") }
        var numbers: [Double] = []
        for part in parts {
            guard let v = Double(part), v.isFinite, v >= 0, v <= 1 else {
                throw TriggerSettingError("zone \"\(text)\": \"\(part)\" is not a fraction 0…1")
            }
            numbers.append(v)
        }
        let zone = MotionZone(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3])
        guard zone.width > 0, zone.height > 0, zone.x + zone.width <= 1.000_001, zone.y + zone.height <= 1.000_001 else {
            throw TriggerSettingError("zone \"\(text)\": W and H above 0, and X+W and Y+H at most 1")
        }
        return zone
    }

    /// The zones of "X,Y,W,H;X,Y,W,H;..." (1…8 of them).
    public static func parseList(_ text: String) throws(TriggerSettingError) -> [MotionZone] {
        let items = text.split(separator: ";").map { String($0).trimmingSpaces }.filter { !$0.isEmpty }
        guard (1...8).contains(items.count) else { throw TriggerSettingError("zones: 1 to 8 of X,Y,W,H separated by ';'") }
        var zones: [MotionZone] = []
        for item in items { zones.append(try parse(item)) }
        return zones
    }

    /// The cells of a `width`×`height` grid the zone covers (at least one).
    func cells(width: Int, height: Int) -> (x: Range<Int>, y: Range<Int>) {
        let x0 = min(width - 1, Int((x * Double(width)).rounded(.down)))
        let y0 = min(height - 1, Int((y * Double(height)).rounded(.down)))
        let x1 = max(x0 + 1, min(width, Int(((x + self.width) * Double(width)).rounded())))
        let y1 = max(y0 + 1, min(height, Int(((y + self.height) * Double(height)).rounded())))
        return (x0..<x1, y0..<y1)
    }
}

/// A trigger setting's text that does not parse: the message says what is accepted.
public struct TriggerSettingError: Error, Sendable, Equatable {
    public let message: String
    public init(_ message: String) { self.message = message }
}

extension StringProtocol {
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}

import Foundation
import Hardware

/// The chosen format and the frame duration limits to stream it at.
public struct FormatSelection: Hashable, Sendable {
    public var format: CameraFormat
    /// FrameDurationLimits to send, µs: the format's full range, or min = max for a fixed rate.
    public var minimumFrameDurationMicroseconds: Int64
    public var maximumFrameDurationMicroseconds: Int64

    /// The whole range of `format`.
    public init(format: CameraFormat) {
        self.format = format
        minimumFrameDurationMicroseconds = format.minimumFrameDurationMicroseconds
        maximumFrameDurationMicroseconds = format.maximumFrameDurationMicroseconds
    }

    /// A fixed rate inside `format`'s range (equal min and max frame durations).
    public init(format: CameraFormat, fps: Double) {
        self.format = format
        let duration = max(Int64((1e6 / fps).rounded()), format.minimumFrameDurationMicroseconds)
        minimumFrameDurationMicroseconds = duration
        maximumFrameDurationMicroseconds = duration
    }

    /// The fixed rate, when min = max.
    public var fixedFps: Double? {
        minimumFrameDurationMicroseconds == maximumFrameDurationMicroseconds
            ? 1e6 / Double(minimumFrameDurationMicroseconds) : nil
    }
}

extension FormatTable {
    /// Selects a format by table index ("3") or by "WxH@fps" ("1920x1080@30", "1536x864@120");
    /// "WxH" alone takes the format's full range. A rate inside a format's range fixes the frame
    /// duration (min = max). Among formats of that size that can run the rate, the one with the widest
    /// field of view wins, then the slower mode. Anything else throws `.noSuchFormat` naming the
    /// nearest formats.
    public static func select(_ choice: String, from formats: [CameraFormat]) throws -> FormatSelection {
        let text = choice.trimmingCharacters(in: .whitespaces).lowercased()
        if let index = Int(text) {
            guard formats.indices.contains(index) else {
                throw CameraError(.noSuchFormat, "format \(index): no such format; choose 0...\(max(formats.count - 1, 0)) or WxH@fps")
            }
            return FormatSelection(format: formats[index])
        }
        let parts = text.split(separator: "@", maxSplits: 1).map(String.init)
        let dims = parts.first?.split(separator: "x").compactMap { Int($0) } ?? []
        let fps = parts.count == 2 ? Double(parts[1]) : nil
        guard dims.count == 2, parts.count == 1 || (fps ?? 0) > 0 else {
            throw CameraError(.noSuchFormat, "format '\(choice)': expected an index or WxH@fps, e.g. 1920x1080@30")
        }
        let size = PixelSize(width: dims[0], height: dims[1])
        let candidates = formats.filter { f in
            f.size == size && (fps.map { $0 >= f.minimumFps * 0.999 && $0 <= f.maximumFps * 1.001 } ?? true)
        }
        let best = candidates.max { a, b in
            (a.sensorCrop.size.area, -a.maximumFps) < (b.sensorCrop.size.area, -b.maximumFps)
        }
        guard let best else {
            let nearest = nearestFormats(to: size, fps: fps, in: formats).map { "#\($0.index) \($0.size)@\(number($0.minimumFps, digits: 3))-\(number($0.maximumFps, digits: 2))" }
            throw CameraError(.noSuchFormat, "format \(choice): not supported; nearest: \(nearest.joined(separator: ", "))")
        }
        guard let fps else { return FormatSelection(format: best) }
        return FormatSelection(format: best, fps: min(fps, best.maximumFps))
    }

    /// Up to three formats closest to `size`@`fps` (log size ratio plus how far the rate is outside).
    static func nearestFormats(to size: PixelSize, fps: Double?, in formats: [CameraFormat]) -> [CameraFormat] {
        func distance(_ f: CameraFormat) -> Double {
            var d = abs(log(Double(f.size.width) / Double(size.width))) + abs(log(Double(f.size.height) / Double(size.height)))
            if let fps {
                if fps > f.maximumFps { d += log(fps / f.maximumFps) }
                if fps < f.minimumFps { d += log(f.minimumFps / fps) }
            }
            return d
        }
        return Array(formats.sorted { (distance($0), $0.index) < (distance($1), $1.index) }.prefix(3))
    }
}

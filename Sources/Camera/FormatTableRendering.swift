import Foundation
import Hardware

extension FormatTable {
    /// The table as aligned text, one format per line under a header: what `tripod formats` and
    /// the console's `formats` print. With `maximumWidth` (a serial terminal), a table wider than
    /// that is printed as several narrower ones, one after the other, each starting with the `#`
    /// column.
    public static func renderText(_ formats: [CameraFormat], maximumWidth: Int? = nil) -> String {
        let header = ["#", "size", "format", "fps", "fov(deg)", "binned", "zoom(max/upscale)", "af", "iso",
                      "exposure(us)", "hdr", "stabilization", "still"]
        var rows = [header]
        for f in formats {
            let fov = f.horizontalFieldOfViewDegrees.map { h in
                "\(number(h, digits: 1))x\(number(f.verticalFieldOfViewDegrees ?? 0, digits: 1))"
            } ?? "unknown"
            rows.append([
                String(f.index), f.size.description, f.pixelFormat.rawValue,
                "\(number(f.minimumFps, digits: 3))-\(number(f.maximumFps, digits: 2))",
                fov, f.isBinned ? "yes" : "no",
                "\(f.maximumZoom.map { number($0, digits: 1) } ?? "?")/\(number(f.upscaleStartZoom, digits: 2))",
                f.afSystem, "\(number(f.minimumISO, digits: 0))-\(number(f.maximumISO, digits: 0))",
                "\(f.minimumExposureMicroseconds)-\(f.maximumExposureMicroseconds)",
                f.videoHDR.label,
                f.stabilizationModes.map(\.rawValue).joined(separator: ","), f.highResolutionStill.description,
            ])
        }
        var widths = [Int](repeating: 0, count: header.count)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        // Column groups: all columns, or as many as fit `maximumWidth` after the `#` column.
        var groups: [[Int]] = [Array(header.indices)]
        if let maximumWidth, widths.reduce(0, +) + 2 * (widths.count - 1) > maximumWidth {
            groups = [[0]]
            for i in header.indices.dropFirst() {
                let used = groups[groups.count - 1].map { widths[$0] + 2 }.reduce(0, +)
                if used + widths[i] > maximumWidth && groups[groups.count - 1].count > 1 { groups.append([0]) }
                groups[groups.count - 1].append(i)
            }
        }
        return groups.map { columns in
            rows.map { row in
                columns.enumerated().map { position, i in
                    position == columns.count - 1 ? row[i] : row[i].padding(toLength: widths[i], withPad: " ", startingAt: 0)
                }.joined(separator: "  ")
            }.joined(separator: "\n") + "\n"
        }.joined()
    }

    /// The table as JSON: an array of `CameraFormat` objects, keys sorted.
    public static func renderJSON(_ formats: [CameraFormat]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            return String(decoding: try encoder.encode(formats), as: UTF8.self) + "\n"
        } catch {
            throw CameraError(.unsupported, "formats: JSON encoding failed: \(error)")
        }
    }

    /// A number with at most `digits` decimals, trailing zeros dropped; small values keep 3
    /// significant digits (0.00893).
    static func number(_ value: Double, digits: Int) -> String {
        if value != 0 && abs(value) < 1 && digits > 0 {
            return String(format: "%.3g", value)
        }
        var text = String(format: "%.\(digits)f", value)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text
    }
}

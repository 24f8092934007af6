import Glibc
import Hardware

/// Builds the board's display: the DRM one when the board has one and it opens, else the null
/// display with the reason, so the rest of the firmware runs the same either way.
public enum DisplayFactory {
    /// The display for `section` and, when it is the null display, why.
    ///
    /// backend "none" (or absent) → null display. backend "drm" → `DRMDisplay` on `device`, or on
    /// the first `/dev/dri/card*` that opens; an error opening it → null display and the error's
    /// message as the reason. A DRM device with no monitor connected yet is returned as is
    /// (`size` nil) so that a later hot-plug works.
    public static func make(_ section: BoardDescription.DisplaySection?, driDirectory: String = "/dev/dri")
        -> (display: any DisplayDevice, reason: String?) {
        guard let section, section.backend == "drm" else {
            return (NullDisplay(), "board has no display (backend \"\(section?.backend ?? "none")\")")
        }
        let candidates = section.device.map { [$0] } ?? cardNodes(in: driDirectory)
        guard !candidates.isEmpty else { return (NullDisplay(), "\(driDirectory): no DRM device (no card* node)") }
        var failures: [String] = []
        for path in candidates {
            do {
                return (try DRMDisplay(devicePath: path, mode: section.mode), nil)
            } catch {
                failures.append(error.description)
            }
        }
        return (NullDisplay(), failures.joined(separator: "; "))
    }

    /// `card0`, `card1`, … in `directory`, in numeric order.
    static func cardNodes(in directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = DRMCard.string(entry.pointee.d_name)
            if name.hasPrefix("card"), Int(name.dropFirst(4)) != nil { names.append(name) }
        }
        return names.sorted { (Int($0.dropFirst(4)) ?? 0) < (Int($1.dropFirst(4)) ?? 0) }.map { "\(directory)/\($0)" }
    }
}

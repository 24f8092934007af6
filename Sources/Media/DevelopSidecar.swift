import Foundation

/// The XMP sidecar a raw developer reads beside a frame (`IMG.dng` → `IMG.xmp`): Adobe's Camera
/// Raw settings namespace (`crs:`), with the exposure correction a time-lapse's ramp left
/// (`crs:Exposure2012`, EV), so that Lightroom, darktable (its Lightroom import) and RawTherapee
/// users develop an even sequence. Tripod writes only what it knows; the developer fills the rest.
///
/// The packet follows XMP Specification Part 1 (the `x:xmpmeta` wrapper, one `rdf:Description`
/// with its properties as attributes) and is plain UTF-8 text, written by hand: no Debian library
/// here writes XMP (exempi reads and writes it, but is one more dependency for one attribute).
public enum DevelopSidecar {
    /// The sidecar's name for a frame's file: its stem with `.xmp` (Lightroom's convention).
    public static func name(for fileName: String) -> String {
        let stem = fileName.split(separator: "/").last.map(String.init) ?? fileName
        let base = stem.lastIndex(of: ".").map { String(stem[..<$0]) } ?? stem
        let folder = fileName.dropLast(stem.count)
        return folder + base + ".xmp"
    }

    /// The XMP packet: `exposureEV` as crs:Exposure2012 (two decimals, signed, within ±5), and the
    /// process version it is meant for (Camera Raw's 2012 process, where that slider lives).
    public static func exposureCorrection(_ exposureEV: Double, creator: String) -> [UInt8] {
        let clamped = min(max(exposureEV.isFinite ? exposureEV : 0, -5), 5)
        let value = String(format: "%+.2f", clamped)
        let text = """
        <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/">
         <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
          <rdf:Description rdf:about=""
            xmlns:xmp="http://ns.adobe.com/xap/1.0/"
            xmlns:crs="http://ns.adobe.com/camera-raw-settings/1.0/"
            xmp:CreatorTool="\(escaped(creator))"
            crs:ProcessVersion="11.0"
            crs:HasSettings="True"
            crs:Exposure2012="\(value)"/>
         </rdf:RDF>
        </x:xmpmeta>
        <?xpacket end="w"?>

        """
        return Array(text.utf8)
    }

    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "<", with: "&lt;")
    }
}

import Camera
import Foundation  // String(format:)

/// Per-frame stabilization facts for a file's metadata: an XMP packet or a maker-note string.
/// The Media layer embeds whichever it supports (XMP in JPEG APP1 / DNG tag 700, or EXIF MakerNote).
public struct StabilizationMetadata: Equatable, Sendable {
    public var status: StabilizationStatus
    /// Measured blur, pixels of the active sensor mode; nil without an IMU.
    public var measuredBlurPixels: Double?
    /// The threshold the blur was judged against, pixels.
    public var blurThresholdPixels: Double
    /// Attempt that was kept (1 = no retake).
    public var attempt: Int
    /// Rotation relative to the bracket's first frame, (w, x, y, z).
    public var alignment: [Double]?

    /// The XMP namespace of these properties (prefix `tripodstab`).
    public static let xmpNamespace = "https://tripod.invalid/ns/stabilization/1.0/"

    public init(status: StabilizationStatus, measuredBlurPixels: Double? = nil, blurThresholdPixels: Double,
                attempt: Int = 1, alignment: [Double]? = nil) {
        self.status = status; self.measuredBlurPixels = measuredBlurPixels
        self.blurThresholdPixels = blurThresholdPixels; self.attempt = attempt; self.alignment = alignment
    }

    /// From a gate's verdict for the kept attempt.
    public init(verdict: FrameVerdict, attempt: Int, blurThresholdPixels: Double) {
        self.init(status: verdict.status, measuredBlurPixels: verdict.measuredBlurPixels,
                  blurThresholdPixels: blurThresholdPixels, attempt: attempt, alignment: verdict.alignment)
    }

    private var fields: [(String, String)] {
        var out: [(String, String)] = [("Status", status.rawValue), ("Attempt", "\(attempt)"),
                                       ("BlurThresholdPixels", String(format: "%.2f", blurThresholdPixels))]
        if let b = measuredBlurPixels { out.append(("MeasuredBlurPixels", String(format: "%.2f", b))) }
        if let a = alignment, a.count == 4 {
            out.append(("AlignmentQuaternion", a.map { String(format: "%.7f", $0) }.joined(separator: ",")))
        }
        return out
    }

    /// A complete XMP packet (`<?xpacket ...?>` wrapper, one rdf:Description with attributes).
    public var xmpPacket: String {
        let attributes = fields.map { "   tripodstab:\($0.0)=\"\($0.1)\"" }.joined(separator: "\n")
        return """
        <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/">
         <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
          <rdf:Description rdf:about=""
           xmlns:tripodstab="\(Self.xmpNamespace)"
        \(attributes)/>
         </rdf:RDF>
        </x:xmpmeta>
        <?xpacket end="w"?>
        """
    }

    /// A one-line ASCII maker note: `Tripod Stabilization Status=Active;Attempt=1;...`.
    public var makerNote: String {
        "Tripod Stabilization " + fields.map { "\($0.0)=\($0.1)" }.joined(separator: ";")
    }
}

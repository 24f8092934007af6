import Hardware

/// A display mode as the kernel lists it for a connector (`drmModeModeInfo`), without the C type.
public struct DRMMode: Hashable, Sendable, CustomStringConvertible {
    /// The kernel's name, e.g. "1920x1080".
    public var name: String
    public var width: Int
    public var height: Int
    /// Vertical refresh, hertz (`vrefresh`).
    public var refreshHertz: Int
    /// `DRM_MODE_TYPE_PREFERRED` is set.
    public var isPreferred: Bool
    public init(name: String, width: Int, height: Int, refreshHertz: Int, isPreferred: Bool) {
        self.name = name; self.width = width; self.height = height
        self.refreshHertz = refreshHertz; self.isPreferred = isPreferred
    }
    public var size: PixelSize { PixelSize(width: width, height: height) }
    public var description: String { "\(width)x\(height)@\(refreshHertz)" }
}

/// A connector as probed (`drmModeGetConnector`): "HDMI-A-1", "Virtual-1".
public struct DRMConnectorInfo: Hashable, Sendable {
    public var id: UInt32
    public var name: String
    public var isConnected: Bool
    public var modes: [DRMMode]
    public init(id: UInt32, name: String, isConnected: Bool, modes: [DRMMode]) {
        self.id = id; self.name = name; self.isConnected = isConnected; self.modes = modes
    }
}

/// A scan-out pixel format by DRM fourcc, limited to those the display path can write.
public enum DRMScanoutFormat: String, CaseIterable, Sendable {
    /// XRGB8888: 32 bits, B G R X in memory. Written by copying rows.
    case xrgb8888 = "XR24"
    /// XRGB16161616: 64 bits, 16-bit B G R X little-endian; each 8-bit channel × 257.
    case xrgb16161616 = "XR48"
    /// RGB565: 16 bits, 5-6-5, little-endian; channels truncated.
    case rgb565 = "RG16"

    /// The fourcc code (`fourcc_code(a, b, c, d)` from drm_fourcc.h).
    public var fourcc: UInt32 { Self.fourcc(rawValue) }
    public var bitsPerPixel: Int {
        switch self { case .xrgb8888: 32; case .xrgb16161616: 64; case .rgb565: 16 }
    }

    public static func fourcc(_ code: String) -> UInt32 {
        code.utf8.prefix(4).enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
    }

    /// The four characters of a fourcc code, for messages ("XR24").
    public static func name(of fourcc: UInt32) -> String {
        String(decoding: (0..<4).map { UInt8(truncatingIfNeeded: fourcc >> (8 * $0)) }, as: UTF8.self)
    }
}

/// Pure choices the DRM display makes from what the device reports.
public enum DRMChoice {
    /// The first connected connector with modes, and its mode: the one `requested` names
    /// ("1920x1080" or "1920x1080@60"), else the preferred one, else the first (largest) listed.
    /// Throws `.notFound` naming the device when nothing is connected, `.invalidArgument` when
    /// `requested` matches no mode of the connector.
    public static func connectorAndMode(_ connectors: [DRMConnectorInfo], requested: String?, device: String)
        throws(HardwareError) -> (connector: DRMConnectorInfo, mode: DRMMode) {
        guard let connector = connectors.first(where: { $0.isConnected && !$0.modes.isEmpty }) else {
            let seen = connectors.map { "\($0.name) \($0.isConnected ? "connected, no modes" : "disconnected")" }
            throw HardwareError(.notFound, "\(device): no connected connector (\(seen.joined(separator: ", ")))")
        }
        if let requested, !requested.isEmpty {
            let parts = requested.split(separator: "@")
            let sizeName = String(parts[0]), hertz = parts.count > 1 ? Int(parts[1]) : nil
            let matches = connector.modes.filter {
                ($0.name == sizeName || "\($0.width)x\($0.height)" == sizeName)
                    && (hertz == nil || $0.refreshHertz == hertz)
            }
            guard let mode = matches.first(where: \.isPreferred) ?? matches.max(by: { $0.refreshHertz < $1.refreshHertz }) else {
                throw HardwareError(.invalidArgument, "\(device) \(connector.name): no mode \"\(requested)\" (has "
                    + connector.modes.map(\.description).joined(separator: ", ") + ")")
            }
            return (connector, mode)
        }
        let mode = connector.modes.first(where: \.isPreferred) ?? connector.modes[0]
        return (connector, mode)
    }

    /// The best format the primary plane offers: XR24 (a row copy), then XR48 (no loss), then RG16.
    public static func scanoutFormat(offered fourccs: [UInt32], device: String) throws(HardwareError) -> DRMScanoutFormat {
        guard let format = DRMScanoutFormat.allCases.first(where: { fourccs.contains($0.fourcc) }) else {
            throw HardwareError(.unsupported, "\(device): primary plane offers none of XR24, XR48, RG16 (offers "
                + fourccs.map(DRMScanoutFormat.name(of:)).joined(separator: ", ") + ")")
        }
        return format
    }

    /// What a re-probe means: `old` and `new` are the chosen (connector id, mode, format), nil
    /// when nothing is connected.
    public static func change(from old: (connector: UInt32, mode: DRMMode, format: DRMScanoutFormat)?,
                              to new: (connector: UInt32, mode: DRMMode, format: DRMScanoutFormat)?)
        -> DisplayConnectionChange {
        switch (old, new) {
        case (nil, nil): return .unchanged
        case (_?, nil): return .disconnected
        case (nil, let n?): return .connected(n.mode.size)
        case (let o?, let n?):
            return o.connector == n.connector && o.mode == n.mode && o.format == n.format ? .unchanged : .modeChanged(n.mode.size)
        }
    }
}

import CDRM
import Glibc
import Hardware
import Syscalls

/// An open DRM device node (`/dev/dri/cardN`) and the libdrm queries the display needs, each
/// returning Swift values or throwing a `HardwareError` that names the device and the call.
final class DRMCard {
    let path: String
    let fd: Int32
    let syscalls: any SystemCalls

    /// `open(path, O_RDWR | O_CLOEXEC)` through `syscalls`, then `drmModeGetResources` to check it
    /// does KMS.
    init(path: String, syscalls: any SystemCalls) throws(HardwareError) {
        self.path = path
        self.syscalls = syscalls
        do { fd = try syscalls.open(path, O_RDWR | O_CLOEXEC) }
        catch { throw error.hardwareError("\(path): open") }
        guard let resources = drmModeGetResources(fd) else {
            let e = SyscallError(errno: errno)
            try? syscalls.close(fd)
            throw HardwareError(.unsupported, "\(path): drmModeGetResources: not a KMS device (\(e))", errno: e.errno)
        }
        drmModeFreeResources(resources)
        // Universal planes let us read the primary plane's formats; older kernels ignore it.
        _ = drmSetClientCap(fd, UInt64(DRM_CLIENT_CAP_UNIVERSAL_PLANES), 1)
    }

    deinit { try? syscalls.close(fd) }

    /// The `HardwareError` for a libdrm call that failed with `code`, naming `what`.
    static func error(_ code: Int32, _ what: String) -> HardwareError {
        SyscallError(errno: code).hardwareError(what)
    }

    /// libdrm calls return 0 or -errno (and some -1 with errno set).
    func check(_ result: Int32, _ call: String) throws(HardwareError) {
        guard result != 0 else { return }
        throw DRMCard.error(result == -1 ? errno : -result, "\(path): \(call)")
    }

    struct Resources {
        var connectorIDs: [UInt32]
        var crtcIDs: [UInt32]
    }

    func resources() throws(HardwareError) -> Resources {
        guard let r = drmModeGetResources(fd) else { throw DRMCard.error(errno, "\(path): drmModeGetResources") }
        defer { drmModeFreeResources(r) }
        let res = r.pointee
        return Resources(connectorIDs: Array(UnsafeBufferPointer(start: res.connectors, count: Int(res.count_connectors))),
                         crtcIDs: Array(UnsafeBufferPointer(start: res.crtcs, count: Int(res.count_crtcs))))
    }

    /// Every connector with its modes; `drmModeGetConnector` makes the kernel probe, so it sees hot-plug.
    func connectors() throws(HardwareError) -> [(info: DRMConnectorInfo, modes: [drmModeModeInfo])] {
        try resources().connectorIDs.compactMap { id in
            guard let c = drmModeGetConnector(fd, id) else { return nil }
            defer { drmModeFreeConnector(c) }
            let con = c.pointee
            let raw = Array(UnsafeBufferPointer(start: con.modes, count: Int(con.count_modes)))
            let modes = raw.map { m in
                DRMMode(name: Self.string(m.name), width: Int(m.hdisplay), height: Int(m.vdisplay),
                        refreshHertz: Int(m.vrefresh), isPreferred: m.type & UInt32(DRM_MODE_TYPE_PREFERRED) != 0)
            }
            let typeName = drmModeGetConnectorTypeName(con.connector_type).map { String(cString: $0) } ?? "Unknown"
            let info = DRMConnectorInfo(id: id, name: "\(typeName)-\(con.connector_type_id)",
                                        isConnected: con.connection == DRM_MODE_CONNECTED, modes: modes)
            return (info, raw)
        }
    }

    /// A CRTC that can drive `connectorID`: the one its encoder uses now, else the first free match.
    func crtc(for connectorID: UInt32) throws(HardwareError) -> (id: UInt32, index: Int) {
        let crtcs = try resources().crtcIDs
        guard let c = drmModeGetConnector(fd, connectorID) else { throw DRMCard.error(errno, "\(path): drmModeGetConnector") }
        defer { drmModeFreeConnector(c) }
        if let e = drmModeGetEncoder(fd, c.pointee.encoder_id) {
            defer { drmModeFreeEncoder(e) }
            if let i = crtcs.firstIndex(of: e.pointee.crtc_id) { return (crtcs[i], i) }
        }
        for encoderID in UnsafeBufferPointer(start: c.pointee.encoders, count: Int(c.pointee.count_encoders)) {
            guard let e = drmModeGetEncoder(fd, encoderID) else { continue }
            defer { drmModeFreeEncoder(e) }
            if let i = crtcs.indices.first(where: { e.pointee.possible_crtcs & (1 << UInt32($0)) != 0 }) { return (crtcs[i], i) }
        }
        throw HardwareError(.notFound, "\(path): no CRTC can drive connector \(connectorID)")
    }

    /// The formats of the primary plane for the CRTC at `crtcIndex` (`drmModeGetPlane`, "type" property).
    func primaryPlaneFormats(crtcIndex: Int) -> [UInt32] {
        guard let planes = drmModeGetPlaneResources(fd) else { return [] }
        defer { drmModeFreePlaneResources(planes) }
        var fallback: [UInt32] = []
        for id in UnsafeBufferPointer(start: planes.pointee.planes, count: Int(planes.pointee.count_planes)) {
            guard let plane = drmModeGetPlane(fd, id) else { continue }
            defer { drmModeFreePlane(plane) }
            guard plane.pointee.possible_crtcs & (1 << UInt32(crtcIndex)) != 0 else { continue }
            let formats = Array(UnsafeBufferPointer(start: plane.pointee.formats, count: Int(plane.pointee.count_formats)))
            if planeType(id) == UInt64(DRM_PLANE_TYPE_PRIMARY) { return formats }
            if fallback.isEmpty { fallback = formats }
        }
        return fallback
    }

    private func planeType(_ planeID: UInt32) -> UInt64? {
        guard let props = drmModeObjectGetProperties(fd, planeID, UInt32(DRM_MODE_OBJECT_PLANE)) else { return nil }
        defer { drmModeFreeObjectProperties(props) }
        for i in 0..<Int(props.pointee.count_props) {
            guard let prop = drmModeGetProperty(fd, props.pointee.props[i]) else { continue }
            defer { drmModeFreeProperty(prop) }
            if Self.string(prop.pointee.name) == "type" { return props.pointee.prop_values[i] }
        }
        return nil
    }

    /// A fixed-size C char array (a tuple in Swift) as a String.
    static func string<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}

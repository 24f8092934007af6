import CCameraShim
import Hardware

/// One acquired libcamera camera (`CameraDevice`), through the C++ shim (tripod_camera.h).
///
/// Use it from one event loop. The event handler is called on libcamera's own thread and must only
/// post the event to that loop. Frame buffers are read-only mappings of the camera's dmabufs; each
/// goes back to the camera's pool when its `FrameBuffer` is released, so hold few of them. Closing
/// (deinit) stops streaming and releases the camera once every frame buffer is gone.
public final class LibcameraCamera: CameraDevice {
    /// Id, model, location and sensor geometry from `Camera::properties()`.
    public let info: CameraInfo
    /// `Camera::controls()` when opened, keyed by `ControlId::name()`.
    public let controlInfo: [String: ControlInfo]
    /// `Camera::controls()` after the last `configure` (per-mode limits such as FrameDurationLimits).
    public private(set) var configuredControlInfo: [String: ControlInfo]

    private let handle: CameraHandle
    private let sink: LibcameraEventSink
    /// The role of stream i of the active configuration.
    private var configuredRoles: [StreamRole] = []

    init(info: CameraInfo, handle: CameraHandle) throws {
        self.info = info
        self.handle = handle
        self.sink = LibcameraEventSink(camera: handle)
        let controls = Self.readControlInfo(handle.pointer)
        self.controlInfo = controls
        self.configuredControlInfo = controls
        let context = Unmanaged.passUnretained(sink).toOpaque()
        try check(tc_camera_set_event_callback(handle.pointer, LibcameraEventSink.callback, context),
                  "set event callback")
    }

    deinit {
        // Stop first: cancelled requests complete through the callback before tc_camera_stop returns.
        _ = tc_camera_stop(handle.pointer)
        _ = tc_camera_set_event_callback(handle.pointer, nil, nil)
    }

    /// `generateConfiguration({role})` then `StreamConfiguration::formats()`: each pixel format with
    /// its discrete sizes. Throws `.unsupported` when the camera cannot produce the role.
    public func streamFormats(for role: StreamRole) throws -> [StreamFormat] {
        var count = 0
        try check(tc_camera_stream_formats(handle.pointer, role.shimRole, &count), "stream formats for \(role)")
        return try (0..<count).map { index in
            var name: UnsafePointer<CChar>?
            var sizes: UnsafePointer<tc_size>?
            var sizeCount = 0
            try check(tc_camera_stream_format_at(handle.pointer, index, &name, &sizes, &sizeCount),
                      "stream format \(index) for \(role)")
            let list = UnsafeBufferPointer(start: sizes, count: sizes == nil ? 0 : sizeCount)
            return StreamFormat(pixelFormat: PixelFormat(name.map { String(cString: $0) } ?? ""),
                                sizes: list.map(PixelSize.init))
        }
    }

    /// Validates (`CameraConfiguration::validate`) and applies (`Camera::configure`) the streams,
    /// then allocates and maps their buffers (`FrameBufferAllocator`). Returns `.valid` or
    /// `.adjusted` with what was applied (sizes, formats, strides). An invalid configuration throws
    /// `.invalidArgument` and changes nothing; so does a role listed twice. Pixel format "" and size
    /// 0x0 mean "the role's default"; bufferCount 0 too.
    public func configure(_ streams: [StreamConfiguration]) throws
        -> (status: ConfigurationStatus, streams: [StreamConfiguration]) {
        guard !streams.isEmpty, Set(streams.map(\.role)).count == streams.count else {
            throw HardwareError(.invalidArgument,
                                "libcamera \(info.id): configure needs one stream per role, got \(streams.map(\.role))")
        }
        var shim = try streams.map(Self.shimConfig)
        var status = TC_CONFIG_INVALID
        configuredRoles = []  // the shim drops the old streams whatever happens next
        try check(tc_camera_configure(handle.pointer, &shim, shim.count, &status),
                  "configure \(streams.map { "\($0.role) \($0.pixelFormat) \($0.size)" })")
        let applied = zip(streams, shim).map { request, result in
            StreamConfiguration(role: request.role, pixelFormat: PixelFormat(Self.name(of: result)),
                                size: PixelSize(result.size), stride: Int(result.stride),
                                bufferCount: Int(result.buffer_count))
        }
        configuredRoles = applied.map(\.role)
        sink.setStreams(applied.map {
            LibcameraEventSink.Stream(role: $0.role, pixelFormat: $0.pixelFormat, size: $0.size, stride: $0.stride)
        })
        configuredControlInfo = Self.readControlInfo(handle.pointer)
        return (status == TC_CONFIG_ADJUSTED ? .adjusted : .valid, applied)
    }

    /// `Camera::start` with `controls` as the initial ControlList (names looked up in this
    /// camera's ControlInfoMap; an absent one throws `.unsupported` naming it).
    public func start(controls: ControlList) throws {
        try withShimControls(controls, "start") { list in
            try check(tc_camera_start(handle.pointer, list), "Camera::start")
        }
    }

    /// Creates a request with its own ControlList and one free buffer of each listed role, and
    /// queues it (`Camera::queueRequest`). Throws `.busy` when a role's buffers are all in flight or
    /// held by the caller.
    public func queueRequest(_ request: CaptureRequest) throws {
        let indices = try request.roles.map { role in
            guard let index = configuredRoles.firstIndex(of: role) else {
                throw HardwareError(.invalidArgument,
                                    "libcamera \(info.id): role \(role) is not configured (configured: \(configuredRoles))")
            }
            return UInt32(index)
        }
        try withShimControls(request.controls, "queue request \(request.cookie)") { list in
            try check(tc_camera_queue_request(handle.pointer, request.cookie, list, indices, indices.count),
                      "Camera::queueRequest \(request.cookie)")
        }
    }

    /// `Camera::stop`; pending requests complete through the handler with `isComplete == false`.
    public func stop() { _ = tc_camera_stop(handle.pointer) }

    /// True when the camera's ControlInfoMap has a control of this name. Absent ones (HdrMode on
    /// libcamera 0.0.3) are unsupported: setting them throws `.unsupported` naming the control.
    public func supports(control name: String) -> Bool {
        controlInfo[name] != nil || configuredControlInfo[name] != nil
    }

    /// Sets the handler for completed requests and disconnection. It runs on libcamera's thread.
    public func setEventHandler(_ handler: @escaping @Sendable (CameraEvent) -> Void) { sink.setHandler(handler) }

    // MARK: Helpers

    private func check(_ status: tc_status, _ call: String) throws {
        try checkShim(status, "camera \(info.id): \(call)") { handle.lastError }
    }

    /// Runs `body` with a shim ControlList holding `controls` (nil when empty), bound to this camera.
    private func withShimControls(_ controls: ControlList, _ call: String,
                                  _ body: (OpaquePointer?) throws -> Void) throws {
        guard !controls.isEmpty else { return try body(nil) }
        guard let list = tc_controls_create_for_camera(handle.pointer) else {
            throw HardwareError(.other, "libcamera camera \(info.id): \(call): out of memory")
        }
        defer { tc_controls_destroy(list) }
        try LibcameraControls.fill(list, with: controls, context: "camera \(info.id): \(call)")
        try body(list)
    }

    private static func readControlInfo(_ camera: OpaquePointer) -> [String: ControlInfo] {
        var result: [String: ControlInfo] = [:]
        for index in 0..<tc_camera_control_info_count(camera) {
            var entry = tc_control_info()
            guard tc_camera_control_info_at(camera, index, &entry) == TC_OK, let cName = entry.name else { continue }
            let name = String(cString: cName)
            result[name] = ControlInfo(name: name, minimum: LibcameraControls.controlValue(entry.min),
                                       maximum: LibcameraControls.controlValue(entry.max),
                                       defaultValue: LibcameraControls.controlValue(entry.def))
        }
        return result
    }

    private static func shimConfig(_ stream: StreamConfiguration) throws -> tc_stream_config {
        var config = tc_stream_config()
        config.role = stream.role.shimRole
        let name = Array(stream.pixelFormat.rawValue.utf8)
        let capacity = MemoryLayout.size(ofValue: config.pixel_format)
        guard name.count < capacity, let width = UInt32(exactly: stream.size.width),
              let height = UInt32(exactly: stream.size.height), let buffers = UInt32(exactly: stream.bufferCount) else {
            throw HardwareError(.invalidArgument, "libcamera: stream \(stream.role): format \(stream.pixelFormat), "
                                + "size \(stream.size) or buffer count \(stream.bufferCount) out of range")
        }
        withUnsafeMutableBytes(of: &config.pixel_format) { bytes in
            bytes.copyBytes(from: name)
        }
        config.size = tc_size(width: width, height: height)
        config.buffer_count = buffers
        return config
    }

    private static func name(of config: tc_stream_config) -> String {
        withUnsafeBytes(of: config.pixel_format) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}

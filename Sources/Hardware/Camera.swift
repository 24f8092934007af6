/// Where a camera sits (libcamera's `properties::Location`).
public enum CameraLocation: String, Sendable, Codable {
    case front, back, external, unknown
}

/// Identity and optics of one camera, as libcamera's properties report them.
public struct CameraInfo: Hashable, Sendable {
    public var id: String
    /// libcamera's `properties::Model`, e.g. "imx708".
    public var model: String
    public var location: CameraLocation
    /// The sensor's full pixel array (`properties::PixelArraySize`).
    public var pixelArraySize: PixelSize
    /// The size of one pixel in nanometres (`properties::UnitCellSize`), when reported.
    public var unitCellSizeNanometres: PixelSize?

    public init(id: String, model: String, location: CameraLocation, pixelArraySize: PixelSize,
                unitCellSizeNanometres: PixelSize?) {
        self.id = id; self.model = model; self.location = location
        self.pixelArraySize = pixelArraySize; self.unitCellSizeNanometres = unitCellSizeNanometres
    }
}

/// libcamera's stream roles.
public enum StreamRole: String, Sendable, CaseIterable, Codable {
    case raw, stillCapture, videoRecording, viewfinder
}

/// A pixel format by libcamera's name ("SRGGB12", "BGR888", "YUV420", "XRGB8888").
public struct PixelFormat: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ name: String) { rawValue = name }
    public var description: String { rawValue }

    /// DRM/libcamera BGR888: 3 bytes per pixel, in memory order R, G, B.
    public static let bgr888 = PixelFormat("BGR888")
    /// DRM/libcamera RGB888: 3 bytes per pixel, in memory order B, G, R.
    public static let rgb888 = PixelFormat("RGB888")
    /// DRM XRGB8888 ("XR24"): 4 bytes per pixel, in memory order B, G, R, X.
    public static let xrgb8888 = PixelFormat("XRGB8888")
    /// Bayer RGGB, 12 bits in the low bits of a little-endian 16-bit word.
    public static let srggb12 = PixelFormat("SRGGB12")
    /// Bayer BGGR, 10 bits unpacked in 16-bit words.
    public static let sbggr10 = PixelFormat("SBGGR10")
    public static let yuv420 = PixelFormat("YUV420")

    /// True for Bayer raw formats (name starts with "S" and a CFA order).
    public var isBayer: Bool {
        ["SRGGB", "SGRBG", "SGBRG", "SBGGR"].contains { rawValue.hasPrefix($0) }
    }
}

/// The formats a stream role can produce: each pixel format with its sizes (`StreamFormats`).
public struct StreamFormat: Hashable, Sendable {
    public var pixelFormat: PixelFormat
    public var sizes: [PixelSize]
    public init(pixelFormat: PixelFormat, sizes: [PixelSize]) { self.pixelFormat = pixelFormat; self.sizes = sizes }
}

/// One stream of a configuration (libcamera's `StreamConfiguration`).
public struct StreamConfiguration: Hashable, Sendable {
    public var role: StreamRole
    public var pixelFormat: PixelFormat
    public var size: PixelSize
    /// Bytes per line, filled in by validation.
    public var stride: Int
    public var bufferCount: Int

    public init(role: StreamRole, pixelFormat: PixelFormat, size: PixelSize, stride: Int = 0, bufferCount: Int = 4) {
        self.role = role; self.pixelFormat = pixelFormat; self.size = size
        self.stride = stride; self.bufferCount = bufferCount
    }
}

/// What validation did to a configuration (libcamera's `CameraConfiguration::Status`).
public enum ConfigurationStatus: String, Sendable {
    case valid, adjusted, invalid
}

/// One request: a cookie the caller chooses, the controls it carries, and the streams to fill.
public struct CaptureRequest: Sendable {
    public var cookie: UInt64
    public var controls: ControlList
    public var roles: [StreamRole]
    public init(cookie: UInt64, controls: ControlList = [:], roles: [StreamRole]) {
        self.cookie = cookie; self.controls = controls; self.roles = roles
    }
}

/// A completed request: its metadata (the values actually used for this frame) and its buffers.
public struct CompletedRequest: Sendable {
    public var cookie: UInt64
    /// Frame sequence number from the sensor; gaps mean dropped frames.
    public var sequence: UInt64
    /// `SensorTimestamp`: start of exposure of the first line, CLOCK_MONOTONIC.
    public var sensorTimestamp: MonotonicTime
    public var metadata: ControlList
    public var buffers: [StreamRole: FrameBuffer]
    /// False when the request was cancelled (camera stopped) before it completed.
    public var isComplete: Bool

    public init(cookie: UInt64, sequence: UInt64, sensorTimestamp: MonotonicTime, metadata: ControlList,
                buffers: [StreamRole: FrameBuffer], isComplete: Bool = true) {
        self.cookie = cookie; self.sequence = sequence; self.sensorTimestamp = sensorTimestamp
        self.metadata = metadata; self.buffers = buffers; self.isComplete = isComplete
    }
}

/// What a camera reports asynchronously.
public enum CameraEvent: Sendable {
    case requestCompleted(CompletedRequest)
    case disconnected
}

/// One camera: libcamera's `Camera`, or the simulated sensor.
///
/// Callers use it from one event loop. The event handler may be called on another thread
/// (libcamera's own); it must hand the event over without blocking.
public protocol CameraDevice: AnyObject {
    var info: CameraInfo { get }
    /// The camera's controls and their limits (`Camera::controls()`), keyed by name.
    var controlInfo: [String: ControlInfo] { get }
    /// The formats a role can produce (`generateConfiguration({role})` then `formats()`).
    func streamFormats(for role: StreamRole) throws -> [StreamFormat]
    /// Validates and applies a configuration (`Camera::configure`), returning what was applied.
    func configure(_ streams: [StreamConfiguration]) throws -> (status: ConfigurationStatus, streams: [StreamConfiguration])
    /// Controls that take effect per configured mode: FrameDurationLimits etc. after `configure`.
    var configuredControlInfo: [String: ControlInfo] { get }
    /// Starts streaming (`Camera::start`) with initial controls.
    func start(controls: ControlList) throws
    /// Queues a request (`Camera::queueRequest`); it completes through the event handler.
    func queueRequest(_ request: CaptureRequest) throws
    /// Stops streaming; pending requests complete as cancelled.
    func stop()
    func setEventHandler(_ handler: @escaping @Sendable (CameraEvent) -> Void)
}

/// Lists and opens cameras (libcamera's `CameraManager`).
public protocol CameraProvider: AnyObject {
    func cameras() -> [CameraInfo]
    /// Opens and acquires a camera by id (`CameraManager::get` + `Camera::acquire`).
    func open(id: String) throws -> any CameraDevice
}

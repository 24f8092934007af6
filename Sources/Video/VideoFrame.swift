import Hardware

/// Bytes of one image that this process owns, freed when the last reference goes (the encoder holds
/// one through an AVBufferRef while it reads the frame).
final class FrameBytes: @unchecked Sendable {
    let base: UnsafeMutableRawPointer
    let count: Int

    init(count: Int) {
        self.count = count
        base = UnsafeMutableRawPointer.allocate(byteCount: max(1, count), alignment: 64)
    }

    deinit { base.deallocate() }
}

/// One image to record with its `SensorTimestamp` and sequence number: planar YUV 4:2:0 (I420: Y,
/// then U and V at half size, chroma stride = `stride / 2`, libcamera's YUV420 layout), or, from a
/// camera without a video stream, packed RGB (BGR888, RGB888, XRGB8888) that the encoder queue
/// converts (`FrameConverter`).
public struct VideoFrame: Sendable {
    public let size: PixelSize
    /// YUV420, or a packed RGB format still to convert.
    public let pixelFormat: PixelFormat
    /// Bytes per line (of luma for YUV420; ≥ width, even).
    public let stride: Int
    public let sequence: UInt64
    public let sensorTimestamp: MonotonicTime
    /// `FrameWallClock`, ns since 1970, when the camera reports it (the sidecar's start time).
    public var wallClockNanoseconds: Int64?
    /// Exposure, gain and colour temperature from the frame's metadata (the sidecar's summary).
    public var exposure: FrameExposure?
    /// Video stabilization's warp, done on the encoder queue (after any conversion to I420); nil
    /// records the frame as it is.
    public var warp: (any VideoFrameWarp)?
    /// What stabilization did to this frame (the sidecar lists it); nil when not stabilized.
    public var stabilized: StabilizedFrame?
    let bytes: FrameBytes

    var info: FrameInfo {
        FrameInfo(sequence: sequence, sensorTimestamp: sensorTimestamp, wallClockNanoseconds: wallClockNanoseconds, exposure: exposure,
                  stabilized: stabilized)
    }

    /// The image's bytes, read-only (the stabilized viewfinder and tests read them).
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: bytes.base, count: bytes.count))
    }

    /// Bytes of an I420 image of `size` with luma stride `stride`.
    public static func byteCount(size: PixelSize, stride: Int) -> Int {
        stride * size.height + 2 * (stride / 2) * ((size.height + 1) / 2)
    }

    /// Bytes of an image of `size`, `stride` and `pixelFormat` (I420, or packed lines).
    static func byteCount(size: PixelSize, stride: Int, pixelFormat: PixelFormat) -> Int {
        pixelFormat == .yuv420 ? byteCount(size: size, stride: stride) : stride * size.height
    }

    /// Bytes per pixel of the packed RGB formats a frame may arrive in, by libcamera name.
    static let packedBytesPerPixel: [PixelFormat: Int] = [.bgr888: 3, .rgb888: 3, .xrgb8888: 4]

    /// A frame whose bytes `fill` writes (tests and benchmarks make synthetic frames this way).
    public init(size: PixelSize, stride: Int, pixelFormat: PixelFormat = .yuv420, sequence: UInt64, sensorTimestamp: MonotonicTime,
                fill: (UnsafeMutableRawBufferPointer) -> Void) throws(VideoError) {
        try Self.check(size: size, stride: stride, pixelFormat: pixelFormat)
        self.size = size; self.stride = stride; self.pixelFormat = pixelFormat
        self.sequence = sequence; self.sensorTimestamp = sensorTimestamp
        bytes = FrameBytes(count: Self.byteCount(size: size, stride: stride, pixelFormat: pixelFormat))
        fill(UnsafeMutableRawBufferPointer(start: bytes.base, count: bytes.count))
    }

    /// The same image as `other` (its bytes shared, not copied) as another frame: the speed
    /// measurement cycles a few images through the encoder.
    init(sharing other: VideoFrame, sequence: UInt64, sensorTimestamp: MonotonicTime) {
        size = other.size; pixelFormat = other.pixelFormat; stride = other.stride
        self.sequence = sequence; self.sensorTimestamp = sensorTimestamp
        bytes = other.bytes
    }

    /// A copy of a camera buffer (YUV420, or packed RGB to convert later), so a lent buffer can go
    /// back to the camera at once.
    public init(copying buffer: FrameBuffer, sequence: UInt64, sensorTimestamp: MonotonicTime) throws(VideoError) {
        guard buffer.pixelFormat == .yuv420 || Self.packedBytesPerPixel[buffer.pixelFormat] != nil else {
            throw VideoError(.invalidArgument, "video needs a YUV420 or packed RGB stream, got \(buffer.pixelFormat)")
        }
        let needed = Self.byteCount(size: buffer.size, stride: buffer.stride, pixelFormat: buffer.pixelFormat)
        guard buffer.byteCount >= needed else {
            throw VideoError(.invalidArgument, "\(buffer.pixelFormat) buffer of \(buffer.size) stride \(buffer.stride) holds \(buffer.byteCount) bytes, needs \(needed)")
        }
        try self.init(size: buffer.size, stride: buffer.stride, pixelFormat: buffer.pixelFormat,
                      sequence: sequence, sensorTimestamp: sensorTimestamp) { target in
            buffer.withUnsafeBytes { source in
                target.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[0..<needed]))
            }
        }
    }

    private static func check(size: PixelSize, stride: Int, pixelFormat: PixelFormat) throws(VideoError) {
        if let bytesPerPixel = packedBytesPerPixel[pixelFormat] {
            guard stride >= size.width * bytesPerPixel else {
                throw VideoError(.invalidArgument, "\(pixelFormat) stride \(stride) is shorter than \(size.width) pixels")
            }
        } else if pixelFormat != .yuv420 {
            throw VideoError(.invalidArgument, "video cannot record \(pixelFormat)")
        }
        guard size.width >= 16, size.height >= 16, size.width <= 8192, size.height <= 8192,
              size.width % 2 == 0, size.height % 2 == 0 else {
            throw VideoError(.invalidArgument, "video frame size \(size) must be even and within 16…8192")
        }
        guard pixelFormat != .yuv420 || (stride >= size.width && stride % 2 == 0) else {
            throw VideoError(.invalidArgument, "video frame stride \(stride) must be even and ≥ width \(size.width)")
        }
    }
}

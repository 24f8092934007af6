import Hardware

/// What the sidecar needs from a camera frame besides its pixels.
public struct FrameExposure: Sendable, Equatable, Codable {
    public var exposureTimeMicroseconds: Double?
    public var analogueGain: Double?
    public var colourTemperatureKelvin: Double?
    /// The frame's video HDR (`videoHDRLabel`): "off", "sensor" or the HdrMode's name.
    public var hdr: String
    public init(exposureTimeMicroseconds: Double? = nil, analogueGain: Double? = nil, colourTemperatureKelvin: Double? = nil,
                hdr: String = "off") {
        self.exposureTimeMicroseconds = exposureTimeMicroseconds; self.analogueGain = analogueGain
        self.colourTemperatureKelvin = colourTemperatureKelvin; self.hdr = hdr
    }
}

/// The camera facts of one frame, carried from `submit` to the file it lands in.
struct FrameInfo: Sendable {
    var sequence: UInt64
    var sensorTimestamp: MonotonicTime
    /// `FrameWallClock` (ns since 1970) when the camera reports it.
    var wallClockNanoseconds: Int64?
    var exposure: FrameExposure?
    /// Video stabilization's record of the frame, when stabilized.
    var stabilized: StabilizedFrame? = nil
}

/// One compressed frame out of the encoder, with the camera frame it came from.
struct EncodedPacket: Sendable {
    var bytes: [UInt8]
    var isKeyframe: Bool
    var frame: FrameInfo
    var sensorTimestamp: MonotonicTime { frame.sensorTimestamp }
    var sequence: UInt64 { frame.sequence }
}

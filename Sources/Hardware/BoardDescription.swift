/// A board: which backend drives each device and where each device is. Read from `board/boards/*.json`.
///
/// The supervisor builds the device graph once from this, in `main`, and passes it down.
public struct BoardDescription: Hashable, Sendable, Codable {
    public var name: String
    public var summary: String
    /// Strings that `/proc/device-tree/model` starts with on this board, for auto-detection.
    public var deviceTreeModels: [String]?
    public var camera: CameraSection
    public var imu: IMUSection
    public var gpio: GPIOSection
    public var display: DisplaySection
    public var console: ConsoleSection?
    /// Video encoding on this board; nil = software encoders only.
    public var video: VideoSection?

    /// The board's video encoder: "h264_v4l2m2m" where the SoC has the V4L2 memory-to-memory H.264
    /// encoder (Pi 4, Zero 2 W); recording falls back to libx264 when it does not open.
    public struct VideoSection: Hashable, Sendable, Codable {
        public var encoder: String?
        public init(encoder: String? = nil) { self.encoder = encoder }
    }

    public struct CameraSection: Hashable, Sendable, Codable {
        /// "sim" or "libcamera".
        public var backend: String
        /// Sensor database key for the simulated sensor ("imx708"); for libcamera, the
        /// expected model, used only for messages.
        public var sensor: String?
        /// The connector name on the board ("CAM0"), for messages.
        public var connector: String?
        /// Seed for the simulated scene and noise.
        public var seed: UInt64?
        /// Simulated camera only: false makes it a camera without exposure controls or exposure
        /// metadata, like vimc (default true).
        public var exposureControl: Bool?
        /// Simulated camera only: render frames no larger than this, scaled down by a whole factor
        /// (for tests that need no pixels). Absent: every stream at its configured size.
        public var maximumRenderSize: PixelSize?
        /// Simulated camera only: what its raw stream hands back when asked for unpacked raw, as
        /// a Pi's pipeline would: "unpacked" (the default: the mode's bits in 16-bit samples),
        /// "pisp16" (a Pi 5: 16-bit samples, MSB-aligned), "pisp-comp1" (a Pi 5 that insists on
        /// its compressed `*_PISP_COMP1`), "csi2-packed" (a Pi 4: `*10_CSI2P` / `*12_CSI2P`).
        public var raw: String?
        /// Frame sync's multicast group, port and interface (`fleet.sync`, docs/fleet.md): where the
        /// simulated camera sends and listens, and where Tripod listens to measure the alignment; on
        /// a Pi it must match the IPA tuning's `rpi.sync` block. Absent: the fork's defaults
        /// (239.255.255.250:10000; the simulated camera keeps them on the loopback).
        public var sync: FrameSyncAddress?
    }

    public struct IMUSection: Hashable, Sendable, Codable {
        /// "sim", "i2c", "iio", "auto" (IIO when a kernel driver owns the chip, else I2C) or "none".
        public var backend: String
        /// I2C adapter device, e.g. "/dev/i2c-1".
        public var bus: String?
        /// 7-bit address; nil probes the known addresses.
        public var address: Int?
        /// Axis mapping from IMU axes to the camera frame, Gyroflow-style ("XYZ", "yXZ", …).
        public var orientation: String?
        /// The data-ready interrupt line, when wired.
        public var dataReady: GPIOLineAddress?
        /// Output data rate in Hz.
        public var rateHertz: Double?
        /// Simulated motion profile ("still", "handheld", "walking", "pan").
        public var motion: String?
        /// Amplitude for the simulated profile, °/s.
        public var amplitudeDegreesPerSecond: Double?
    }

    public struct GPIOSection: Hashable, Sendable, Codable {
        /// "sim", "gpiod" or "none".
        public var backend: String
        public var shutter: GPIOLineAddress?
        public var halfPress: GPIOLineAddress?
        public var led: GPIOLineAddress?
        /// A PIR motion sensor's output, a trigger source (docs/triggers.md).
        public var pir: GPIOLineAddress?
    }

    public struct DisplaySection: Hashable, Sendable, Codable {
        /// "none" or "drm".
        public var backend: String
        public var device: String?
        /// The mode to use, "1920x1080" or "1920x1080@60" (Hz); nil takes the connector's preferred mode.
        public var mode: String?
    }

    public struct ConsoleSection: Hashable, Sendable, Codable {
        /// The serial console device ("/dev/ttyAMA0") on a real board.
        public var device: String?
        public var baud: Int?
    }
}

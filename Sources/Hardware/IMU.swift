/// One IMU sample in SI units, in the camera sensor's frame (after the board's axis mapping).
public struct IMUSample: Hashable, Sendable {
    public var timestamp: MonotonicTime
    /// Angular rate, rad/s.
    public var gyro: Vector3
    /// Specific force, m/s² (gravity included).
    public var accel: Vector3
    public init(timestamp: MonotonicTime, gyro: Vector3, accel: Vector3) {
        self.timestamp = timestamp; self.gyro = gyro; self.accel = accel
    }
}

/// Health of the IMU, reported to consoles and used by stabilization.
public enum IMUHealth: Hashable, Sendable {
    case running
    /// Absent or failing; `reason` names the error.
    case unavailable(reason: String)
}

/// What an IMU reports asynchronously.
public enum IMUEvent: Sendable {
    /// A batch of samples, in time order.
    case samples([IMUSample])
    case health(IMUHealth)
}

/// An IMU, read by a driver (I2C, IIO) or simulated.
public protocol IMUDevice: AnyObject {
    /// "mpu6050 on i2c-1@0x68", for banners and messages.
    var name: String { get }
    /// Output data rate, Hz.
    var sampleRateHertz: Double { get }
    /// Starts delivering samples; events may come on any thread and must not block there.
    func start(handler: @escaping @Sendable (IMUEvent) -> Void) throws
    func stop()
}

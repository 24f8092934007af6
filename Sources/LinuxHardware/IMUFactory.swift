import Hardware
import Motion

/// Builds the real board's IMU from its `imu` section.
///
/// backend "iio": the IIO device with a known IMU name (a kernel driver owns the chip) that sits
/// at the board's `bus`/`address` when the board gives them, else the first one;
/// "i2c": `LinuxI2CDevice` on `bus` (default /dev/i2c-1) at `address`, or at the first address
/// where a known WHO_AM_I answers (if none answers, 0x68, which the driver keeps retrying);
/// "auto": IIO when a kernel driver has bound, else I2C. `dataReady` is the INT line when wired
/// (I2C backend only). Throws for "sim"/"none"/unknown backends and for a bus that cannot be opened.
public func makeLinuxIMU(section: BoardDescription.IMUSection, loop: any EventLoop,
                         dataReady: (any GPIOInputLine)? = nil,
                         sysfsRoot: String = "/sys/bus/iio/devices", devRoot: String = "/dev") throws -> any IMUDevice {
    var configuration = IMUConfiguration()
    if let text = section.orientation { configuration.axisMapping = try AxisMapping(text) }
    if let rate = section.rateHertz { configuration.rateHertz = rate }
    func iio() -> (any IMUDevice)? {
        let all = IIOIMU.find(sysfsRoot: sysfsRoot, devRoot: devRoot)
        let candidates = section.address.map { address in
            all.filter { $0.isOn(bus: section.bus ?? "/dev/i2c-1", address: address) }
        } ?? all
        guard let found = candidates.first else { return nil }
        return IIOIMU(found: found, loop: loop, axisMapping: configuration.axisMapping,
                      rateHertz: configuration.rateHertz, pollInterval: configuration.pollInterval)
    }
    func i2c() throws -> any IMUDevice {
        let bus = section.bus ?? "/dev/i2c-1"
        let device: any I2CDevice
        if let address = section.address {
            // 7-bit addresses only; a board file's 300 or -1 is an error, not a trap.
            guard let address7 = UInt8(exactly: address), address7 <= 0x7F else {
                throw HardwareError(.invalidArgument, "IMU address \(address) is not a 7-bit I2C address (0x00...0x7f)")
            }
            device = try LinuxI2CDevice(path: bus, address: address7)
        } else if let found = try? IMUChipModel.detect(open: { try LinuxI2CDevice(path: bus, address: $0) }) {
            device = found.device
        } else {
            device = try LinuxI2CDevice(path: bus, address: IMUChipModel.probeAddresses[0])
        }
        return I2CIMU(device: device, loop: loop, configuration: configuration, dataReady: dataReady)
    }
    switch section.backend {
    case "iio":
        guard let device = iio() else {
            throw HardwareError(.notFound, "IMU backend iio: no IIO IMU under \(sysfsRoot) (is the dtoverlay loaded?)")
        }
        return device
    case "i2c": return try i2c()
    case "auto": return try iio() ?? i2c()
    default:
        throw HardwareError(.invalidArgument, "IMU backend \"\(section.backend)\": makeLinuxIMU takes i2c, iio or auto")
    }
}

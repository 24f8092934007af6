import Foundation
import Glibc
import Hardware
import Syscalls
import Motion

/// An IMU owned by a kernel IIO driver (`inv_mpu6050`, `st_lsm6dsx`), read through sysfs and
/// its buffer device.
///
/// Start: writes "monotonic" to `current_timestamp_clock` (IIO stamps CLOCK_REALTIME by default),
/// the sampling frequency, enables the six `in_anglvel_*`/`in_accel_*` scan elements and
/// `in_timestamp`, sets `buffer/length`, `buffer/enable` = 1, then opens `/dev/iio:deviceN`
/// non-blocking and drains whole records every `pollInterval` on `loop`. Values are
/// (raw + offset) × scale (IIO units are already rad/s and m/s²), mapped by `axisMapping`;
/// timestamps come from the kernel's timestamp channel (ns). Errors emit `.health(.unavailable)`
/// and restart with doubling backoff.
///
/// Under the shipped systemd unit /sys is read-only (ProtectKernelTunables), so the buffer cannot
/// be set up: the first write failing with EROFS, EACCES or EPERM switches to polling the raw
/// attributes (reads only, one sample per `pollInterval`), and `name` says so.
public final class IIOIMU: IMUDevice, @unchecked Sendable {
    /// A device found under the IIO sysfs root.
    public struct Found: Hashable, Sendable {
        /// The driver's name file ("mpu6050", "lsm6dso").
        public var name: String
        public var sysfsDirectory: String
        public var devicePath: String
        /// The I2C client the device hangs off ("1-0068": bus 1, address 0x68), when it is one.
        public var i2cClient: String?

        /// True when this device is the chip at `address` on `bus` ("/dev/i2c-1").
        public func isOn(bus: String, address: Int) -> Bool {
            guard let number = bus.split(separator: "-").last else { return false }
            let hex = String(address, radix: 16)
            return i2cClient == "\(number)-" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }
    }

    /// IIO drivers names of the chips this backend knows.
    public static let knownNames = ["mpu6050", "mpu6500", "mpu9250", "icm20608", "mpu6000",
                                    "lsm6dso", "lsm6ds3", "lsm6ds3h", "lsm6dsl", "lsm6dsm", "lsm6dsox"]
    static let axes = ["x", "y", "z"]

    /// IIO devices whose `name` is a known IMU (those with gyro channels), sorted by directory.
    public static func find(sysfsRoot: String = "/sys/bus/iio/devices", devRoot: String = "/dev") -> [Found] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: sysfsRoot)) ?? []
        return entries.filter { $0.hasPrefix("iio:device") }.sorted().compactMap { entry in
            let dir = sysfsRoot + "/" + entry
            guard let name = try? iioReadText(dir + "/name"),
                  knownNames.contains(where: { name.hasPrefix($0) }) || FileManager.default.fileExists(atPath: dir + "/in_anglvel_x_raw")
            else { return nil }
            // /sys/bus/iio/devices/iio:deviceN links to …/i2c-1/1-0068/iio:deviceN.
            let parent = URL(fileURLWithPath: dir).resolvingSymlinksInPath().deletingLastPathComponent().lastPathComponent
            let client = parent.range(of: #"^\d+-[0-9a-f]{4}$"#, options: .regularExpression) != nil ? parent : nil
            return Found(name: name, sysfsDirectory: dir, devicePath: devRoot + "/" + entry, i2cClient: client)
        }
    }

    public let found: Found
    private let loop: any EventLoop
    private let axisMapping: AxisMapping
    private let requestedRateHertz: Double
    private let pollInterval: Duration
    private let shared: LockedValue<Double>
    /// Set once a sysfs write was refused as read-only; read from any thread (`name`).
    private let readOnly = LockedValue(false)
    // Loop-confined:
    private var handler: (@Sendable (IMUEvent) -> Void)?
    private var fd: Int32 = -1
    private let syscalls: any SystemCalls
    private var layout = IIOScanLayout(channels: [])
    private var scale = (gyro: [1.0, 1, 1], accel: [1.0, 1, 1])
    private var offset = (gyro: [0.0, 0, 0], accel: [0.0, 0, 0])
    private var pending: [UInt8] = []
    private var timer: ScheduledWork?
    private var running = false, unavailable = false, stopped = true
    /// True when the driver has no buffer and samples come from the raw attributes.
    private var pollingRaw = false
    private var retryDelay: Duration = .milliseconds(100)

    /// An IMU on the IIO device `found`: its sysfs attributes written and its buffer opened and
    /// read through `syscalls` (tests inject faults there).
    public init(found: Found, loop: any EventLoop, axisMapping: AxisMapping = .identity,
                rateHertz: Double = 500, pollInterval: Duration = .milliseconds(10),
                syscalls: any SystemCalls = SystemSyscalls()) {
        self.syscalls = syscalls
        self.found = found; self.loop = loop; self.axisMapping = axisMapping
        self.requestedRateHertz = rateHertz; self.pollInterval = pollInterval
        shared = LockedValue(rateHertz)
    }

    public var name: String {
        "\(found.name) via IIO \(found.devicePath)" + (readOnly.current ? " (read-only /sys: raw attributes polled)" : "")
    }

    /// `open(2)`, one `write(2)` and `close(2)` of a sysfs attribute through `syscalls` (a sysfs
    /// store takes the value in one write; a short one is EIO).
    static func writeAttributeFile(_ path: String, _ value: String, syscalls: any SystemCalls) throws(SyscallError) {
        // O_CREAT | O_TRUNC as Data.write did: tests use plain files.
        let fd = try syscalls.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode: 0o644)
        defer { try? syscalls.close(fd) }
        let bytes = Array((value + "\n").utf8)
        let written = bytes.withUnsafeBytes { raw in Result { () throws(SyscallError) in try syscalls.write(fd, raw) } }
        if try written.get() != bytes.count { throw SyscallError(errno: EIO) }
    }
    public var sampleRateHertz: Double { shared.current }

    public func start(handler: @escaping @Sendable (IMUEvent) -> Void) throws {
        loop.execute { [self] in
            guard stopped else { return }
            stopped = false
            self.handler = handler
            bringUp()
        }
    }

    public func stop() {
        loop.execute { [self] in
            stopped = true
            timer?.cancel()
            closeBuffer()
            if !pollingRaw { try? writeAttribute("buffer/enable", "0") }
            pollingRaw = false
            handler = nil
        }
    }

    // MARK: sysfs

    private func path(_ attribute: String) -> String { found.sysfsDirectory + "/" + attribute }
    private func writeAttribute(_ attribute: String, _ value: String) throws {
        do throws(SyscallError) { try Self.writeAttributeFile(path(attribute), value, syscalls: syscalls) } catch {
            if [EROFS, EACCES, EPERM].contains(error.errno) { throw ReadOnlySysfs() }
            throw error.hardwareError("\(found.sysfsDirectory): write \(attribute)=\(value)")
        }
    }

    /// A sysfs write refused because /sys is read-only here (or not ours to write).
    private struct ReadOnlySysfs: Error {}
    private func number(_ attribute: String) throws -> Double {
        let text = try iioReadText(path(attribute))
        guard let v = Double(text) else { throw HardwareError(.invalidArgument, "\(path(attribute)): \"\(text)\" is not a number") }
        return v
    }
    private func optionalNumber(_ attributes: String...) -> Double? {
        for a in attributes { if let v = try? number(a) { return v } }
        return nil
    }

    /// Reads scales (per-axis `in_anglvel_x_scale` or shared `in_anglvel_scale`) and offsets.
    private func readScales() throws {
        for (i, axis) in Self.axes.enumerated() {
            guard let g = optionalNumber("in_anglvel_\(axis)_scale", "in_anglvel_scale"),
                  let a = optionalNumber("in_accel_\(axis)_scale", "in_accel_scale") else {
                throw HardwareError(.notFound, "\(found.sysfsDirectory): no in_anglvel/in_accel scale")
            }
            scale.gyro[i] = g; scale.accel[i] = a
            offset.gyro[i] = optionalNumber("in_anglvel_\(axis)_offset", "in_anglvel_offset") ?? 0
            offset.accel[i] = optionalNumber("in_accel_\(axis)_offset", "in_accel_offset") ?? 0
        }
    }

    /// One unbuffered sample from the `*_raw` attributes, stamped with the loop's clock.
    public func readSysfsSample() throws -> IMUSample {
        try readScales()
        var g = Vector3.zero, a = Vector3.zero
        for (i, axis) in Self.axes.enumerated() {
            g[i] = (try number("in_anglvel_\(axis)_raw") + offset.gyro[i]) * scale.gyro[i]
            a[i] = (try number("in_accel_\(axis)_raw") + offset.accel[i]) * scale.accel[i]
        }
        return IMUSample(timestamp: loop.now(), gyro: axisMapping.toCamera(g), accel: axisMapping.toCamera(a))
    }

    // MARK: buffer

    private func bringUp() {
        // A driver without a trigger has no buffer (inv_mpu6050 when the chip's interrupt is not
        // wired): read the raw attributes on a timer instead.
        if !FileManager.default.fileExists(atPath: path("buffer")) || readOnly.current {
            startRawPolling()
            return
        }
        do {
            try? writeAttribute("buffer/enable", "0")
            try readScales()
            try writeAttribute("current_timestamp_clock", "monotonic")
            if (try? writeAttribute("sampling_frequency", String(Int(requestedRateHertz.rounded())))) != nil,
               let actual = try? number("sampling_frequency") {
                shared.withLock { $0 = actual }
            }
            var channels: [(name: String, index: Int, type: IIOScanType)] = []
            for channel in Self.axes.map({ "in_anglvel_\($0)" }) + Self.axes.map({ "in_accel_\($0)" }) + ["in_timestamp"] {
                try writeAttribute("scan_elements/\(channel)_en", "1")
                let index = Int(try number("scan_elements/\(channel)_index"))
                let type = try IIOScanType(parsing: try iioReadText(path("scan_elements/\(channel)_type")))
                channels.append((channel, index, type))
            }
            layout = IIOScanLayout(channels: channels)
            try writeAttribute("buffer/length", "1024")
            try writeAttribute("buffer/enable", "1")
            closeBuffer()
            do { fd = try syscalls.open(found.devicePath, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }
            catch { throw error.hardwareError("\(found.devicePath): open") }
            pending.removeAll()
            running = true
            retryDelay = .milliseconds(100)
            handler?(.health(.running))
            unavailable = false
            schedule(after: pollInterval) { $0.drain() }
        } catch is ReadOnlySysfs {
            readOnly.withLock { $0 = true }
            startRawPolling()
        } catch {
            fault(error)
        }
    }

    /// Unbuffered mode: one sample per `pollInterval` from the `*_raw` attributes, stamped when read
    /// (so timestamps carry the sysfs read latency, and the rate is 1/pollInterval at most).
    private func startRawPolling() {
        do {
            try readScales()
            _ = try readSysfsSample()
        } catch {
            fault(error)
            return
        }
        pollingRaw = true
        running = true
        retryDelay = .milliseconds(100)
        shared.withLock { $0 = 1 / pollInterval.secondsValue }
        unavailable = false
        handler?(.health(.running))
        schedule(after: pollInterval) { $0.pollRaw() }
    }

    func pollRaw() {
        guard running, pollingRaw else { return }
        do {
            let sample = try readSysfsSample()
            handler?(.samples([sample]))
        } catch {
            pollingRaw = false
            fault(error)
            return
        }
        schedule(after: pollInterval) { $0.pollRaw() }
    }

    private func closeBuffer() {
        if fd >= 0 { try? syscalls.close(fd); fd = -1 }
        running = false
    }

    private func fault(_ error: any Error) {
        closeBuffer()
        if !unavailable {
            unavailable = true
            handler?(.health(.unavailable(reason: (error as? HardwareError)?.message ?? "\(found.devicePath): \(error)")))
        }
        let delay = retryDelay
        retryDelay = min(retryDelay * 2, .seconds(2))
        schedule(after: delay) { $0.bringUp() }
    }

    private func schedule(after delay: Duration, _ body: @escaping @Sendable (IIOIMU) -> Void) {
        timer?.cancel()
        let me = LoopBound(self, loop: loop)
        timer = loop.schedule(after: delay) { let s = me.value; if !s.stopped { body(s) } }
    }

    /// One read(2) of the buffer into `chunk`.
    private func readChunk(_ chunk: inout [UInt8]) throws(SyscallError) -> Int {
        let fd = self.fd, syscalls = self.syscalls
        var result: Result<Int, SyscallError> = .success(0)
        chunk.withUnsafeMutableBytes { b in result = Result { () throws(SyscallError) in try syscalls.read(fd, b) } }
        return try result.get()
    }

    /// Reads every whole record available now.
    func drain() {
        guard running else { return }
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n: Int
            do {
                n = try readChunk(&chunk)
            } catch where error.errno == EAGAIN || error.errno == EWOULDBLOCK {
                break
            } catch {
                fault(error.hardwareError("\(found.devicePath): read"))
                return
            }
            if n > 0 { pending += chunk.prefix(n); continue }
            break
        }
        let size = layout.recordBytes
        let records = size > 0 ? pending.count / size : 0
        if records > 0 {
            var samples: [IMUSample] = []
            samples.reserveCapacity(records)
            pending.withUnsafeBytes { bytes in
                for r in 0..<records { samples.append(decode(bytes, at: r * size)) }
            }
            pending.removeFirst(records * size)
            handler?(.samples(samples))
        }
        schedule(after: pollInterval) { $0.drain() }
    }

    private func decode(_ bytes: UnsafeRawBufferPointer, at base: Int) -> IMUSample {
        var g = Vector3.zero, a = Vector3.zero
        var t: Int64 = 0
        for c in layout.channels {
            let v = c.type.decode(bytes, at: base + c.offset)
            switch c.name {
            case "in_anglvel_x": g.x = (Double(v) + offset.gyro[0]) * scale.gyro[0]
            case "in_anglvel_y": g.y = (Double(v) + offset.gyro[1]) * scale.gyro[1]
            case "in_anglvel_z": g.z = (Double(v) + offset.gyro[2]) * scale.gyro[2]
            case "in_accel_x": a.x = (Double(v) + offset.accel[0]) * scale.accel[0]
            case "in_accel_y": a.y = (Double(v) + offset.accel[1]) * scale.accel[1]
            case "in_accel_z": a.z = (Double(v) + offset.accel[2]) * scale.accel[2]
            case "in_timestamp": t = v
            default: break
            }
        }
        return IMUSample(timestamp: MonotonicTime(nanoseconds: t), gyro: axisMapping.toCamera(g), accel: axisMapping.toCamera(a))
    }
}

/// The trimmed contents of a sysfs attribute.
func iioReadText(_ path: String) throws -> String {
    do { return try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines) } catch {
        throw HardwareError(.notFound, "\(path): cannot read (\(error.localizedDescription))")
    }
}

import Foundation
import Hardware
import LinuxHardware
import ManualLoop
import Motion
import SimulatedHardware
import Syscalls
import Testing
import TestSupport

/// A fake IIO sysfs tree for an inv_mpu6050 in a temp directory, plus a fake buffer file.
final class FakeIIO {
    let root: URL
    var sysfs: String { root.path + "/sys" }
    var dev: String { root.path + "/dev" }
    var device: String { sysfs + "/iio:device0" }
    var buffer: String { dev + "/iio:device0" }

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("iio-\(UUID().uuidString)")
        let fm = FileManager.default
        try fm.createDirectory(atPath: device + "/scan_elements", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: device + "/buffer", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: dev, withIntermediateDirectories: true)
        try write("name", "mpu6050")
        try write("in_anglvel_scale", "0.001064724")   // ±2000 °/s
        try write("in_accel_scale", "0.000598")        // ±2 g
        try write("sampling_frequency", "50")
        try write("current_timestamp_clock", "realtime")
        for (axis, raw) in zip(["x", "y", "z"], ["100", "-200", "0"]) {
            try write("in_anglvel_\(axis)_raw", raw)
            try write("in_accel_\(axis)_raw", axis == "z" ? "16384" : "0")
        }
        // inv_mpu6050 indices: accel 0–2, temp 3 (not enabled here), gyro 4–6, timestamp 7.
        let channels = [("in_accel_x", 0), ("in_accel_y", 1), ("in_accel_z", 2),
                        ("in_anglvel_x", 4), ("in_anglvel_y", 5), ("in_anglvel_z", 6)]
        for (name, index) in channels {
            try write("scan_elements/\(name)_en", "0")
            try write("scan_elements/\(name)_index", "\(index)")
            try write("scan_elements/\(name)_type", "be:s16/16>>0")
        }
        try write("scan_elements/in_timestamp_en", "0")
        try write("scan_elements/in_timestamp_index", "7")
        try write("scan_elements/in_timestamp_type", "le:s64/64>>0")
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    func write(_ attribute: String, _ value: String) throws {
        try Data((value + "\n").utf8).write(to: URL(fileURLWithPath: device + "/" + attribute))
    }
    func read(_ attribute: String) -> String? {
        (try? String(contentsOfFile: device + "/" + attribute, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A 24-byte record: accel xyz, gyro xyz (big-endian s16), 4 bytes pad, timestamp (le s64).
    static func record(accel: [Int16], gyro: [Int16], timestampNanoseconds: Int64) -> [UInt8] {
        var bytes: [UInt8] = []
        for v in accel + gyro { let u = UInt16(bitPattern: v); bytes += [UInt8(u >> 8), UInt8(u & 0xFF)] }
        bytes += [0, 0, 0, 0]
        let t = UInt64(bitPattern: timestampNanoseconds)
        bytes += (0..<8).map { UInt8((t >> (8 * UInt64($0))) & 0xFF) }
        return bytes
    }

    func appendToBuffer(_ records: [[UInt8]]) throws {
        if !FileManager.default.fileExists(atPath: buffer) { _ = FileManager.default.createFile(atPath: buffer, contents: nil) }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: buffer))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(records.joined()))
        try handle.close()
    }
}

func section(_ json: String) throws -> BoardDescription.IMUSection {
    try JSONDecoder().decode(BoardDescription.IMUSection.self, from: Data(json.utf8))
}

@Suite("IIO backend, i2c-dev, factory")
struct IIOTests {
    @Test("scan types parse and decode")
    func scanTypes() throws {
        let be = try IIOScanType(parsing: "be:s16/16>>0\n")
        #expect(!be.littleEndian && be.signed && be.realBits == 16 && be.storageBits == 16 && be.shift == 0)
        #expect([UInt8(0xFF), 0x38].withUnsafeBytes { be.decode($0, at: 0) } == -200)
        let packed = try IIOScanType(parsing: "le:s12/16>>4")
        #expect([UInt8(0x00), 0x80].withUnsafeBytes { packed.decode($0, at: 0) } == -2048)
        let unsigned = try IIOScanType(parsing: "le:u12/16>>4")
        #expect([UInt8(0xF0), 0xFF].withUnsafeBytes { unsigned.decode($0, at: 0) } == 4095)
        for bad in ["xx:s16/16>>0", "le:s16/12>>0", "le:q16/16>>0", "le:s16", "le:s12/16>>8"] {
            #expect(throws: HardwareError.self) { try IIOScanType(parsing: bad) }
        }
        let layout = IIOScanLayout(channels: [("t", 7, try IIOScanType(parsing: "le:s64/64>>0")),
                                              ("a", 0, be), ("b", 1, be), ("c", 2, be)])
        #expect(layout.channel("t")?.offset == 8 && layout.recordBytes == 16)
    }

    @Test("sysfs sample: raw × scale, mapped")
    func sysfsSample() throws {
        let fake = try FakeIIO()
        let found = try #require(IIOIMU.find(sysfsRoot: fake.sysfs, devRoot: fake.dev).first)
        #expect(found.name == "mpu6050" && found.devicePath == fake.buffer)
        let imu = IIOIMU(found: found, loop: ManualEventLoop(), axisMapping: try AxisMapping("yXZ"))
        let s = try imu.readSysfsSample()
        #expect(abs(s.gyro.x - 200 * 0.001064724) < 1e-9)   // camera x = −IMU y
        #expect(abs(s.gyro.y - 100 * 0.001064724) < 1e-9)
        #expect(abs(s.accel.z - 16384 * 0.000598) < 1e-9)
    }

    @Test("buffered reads: channels enabled, monotonic clock chosen, records decoded with timestamps")
    func buffered() throws {
        let fake = try FakeIIO()
        try fake.appendToBuffer((0..<10).map {
            FakeIIO.record(accel: [0, 0, 16384], gyro: [Int16($0), -5, 7], timestampNanoseconds: 5_000_000_000 + Int64($0) * 2_000_000)
        })
        let loop = ManualEventLoop()
        let found = try #require(IIOIMU.find(sysfsRoot: fake.sysfs, devRoot: fake.dev).first)
        let imu = IIOIMU(found: found, loop: loop, rateHertz: 500)
        let events = LockedValue<[IMUEvent]>([])
        try imu.start { e in events.withLock { $0.append(e) } }
        loop.advance(by: .milliseconds(50))
        #expect(fake.read("current_timestamp_clock") == "monotonic")
        #expect(fake.read("scan_elements/in_anglvel_x_en") == "1" && fake.read("scan_elements/in_timestamp_en") == "1")
        #expect(fake.read("buffer/enable") == "1")
        #expect(imu.sampleRateHertz == 500)
        try fake.appendToBuffer([FakeIIO.record(accel: [0, 0, 16384], gyro: [10, -5, 7], timestampNanoseconds: 5_020_000_000)])
        loop.advance(by: .milliseconds(20))
        let samples = events.current.flatMap { if case .samples(let s) = $0 { s } else { [IMUSample]() } }
        #expect(samples.count == 11)
        #expect(samples.map(\.timestamp.nanoseconds) == (0..<11).map { 5_000_000_000 + Int64($0) * 2_000_000 })
        #expect(abs(samples[3].gyro.x - 3 * 0.001064724) < 1e-12 && abs(samples[3].gyro.y + 5 * 0.001064724) < 1e-12)
        #expect(abs(samples[0].accel.z - 16384 * 0.000598) < 1e-9)
        imu.stop()
        loop.run()
        #expect(fake.read("buffer/enable") == "0")
    }

    @Test("a driver without a buffer (no IRQ wired): samples are polled from the raw attributes")
    func rawPollingWithoutABuffer() throws {
        let fake = try FakeIIO()
        try FileManager.default.removeItem(atPath: fake.device + "/buffer")
        let loop = ManualEventLoop()
        let imu = IIOIMU(found: try #require(IIOIMU.find(sysfsRoot: fake.sysfs, devRoot: fake.dev).first), loop: loop,
                         pollInterval: .milliseconds(10))
        let events = LockedValue<[IMUEvent]>([])
        try imu.start { e in events.withLock { $0.append(e) } }
        loop.advance(by: .milliseconds(105))
        let health = events.current.compactMap { if case .health(let h) = $0 { h } else { nil } }
        let samples = events.current.flatMap { if case .samples(let s) = $0 { s } else { [IMUSample]() } }
        #expect(health == [.running])
        #expect(samples.count == 10)
        #expect(abs((samples.first?.gyro.x ?? 0) - 100 * 0.001064724) < 1e-9)
        #expect(imu.sampleRateHertz == 100)
        try fake.write("in_anglvel_x_raw", "300")
        loop.advance(by: .milliseconds(10))
        let last = events.current.compactMap { if case .samples(let s) = $0 { s.last } else { nil } }.last
        #expect(abs((last?.gyro.x ?? 0) - 300 * 0.001064724) < 1e-9, "each poll reads the attributes afresh")
        imu.stop()
        loop.run()
    }

    @Test("read-only /sys (the hardened unit): the buffer cannot be set up, so the raw attributes are polled")
    func readOnlySysfsFallsBackToRawPolling() throws {
        let fake = try FakeIIO()
        let loop = ManualEventLoop()
        // Every open for writing is refused (a read-only /sys); nothing else opens in raw polling.
        let faults = FaultInjectingSyscalls()
        faults.fail(.open, errno: EROFS, times: 1000)
        let imu = IIOIMU(found: try #require(IIOIMU.find(sysfsRoot: fake.sysfs, devRoot: fake.dev).first), loop: loop,
                         pollInterval: .milliseconds(10), syscalls: RetryingSyscalls(faults))
        let events = LockedValue<[IMUEvent]>([])
        try imu.start { e in events.withLock { $0.append(e) } }
        loop.advance(by: .milliseconds(105))
        let health = events.current.compactMap { if case .health(let h) = $0 { h } else { nil } }
        let samples = events.current.flatMap { if case .samples(let s) = $0 { s } else { [IMUSample]() } }
        #expect(health == [.running], "running, never unavailable")
        #expect(samples.count >= 9)
        #expect(abs((samples.first?.gyro.x ?? 0) - 100 * 0.001064724) < 1e-9)
        #expect(imu.name.contains("read-only /sys"))
        #expect(fake.read("buffer/enable") == nil && fake.read("current_timestamp_clock") == "realtime", "nothing written")
        imu.stop()
        loop.run()
        let afterStop = faults.count(.open)
        #expect(afterStop <= 2, "no write retried on every poll: \(afterStop)")
    }

    @Test("a missing buffer node: unavailable, then recovery when it appears")
    func recovery() throws {
        let fake = try FakeIIO()
        let loop = ManualEventLoop()
        let imu = IIOIMU(found: try #require(IIOIMU.find(sysfsRoot: fake.sysfs, devRoot: fake.dev).first), loop: loop)
        let events = LockedValue<[IMUHealth]>([])
        try imu.start { e in if case .health(let h) = e { events.withLock { $0.append(h) } } }
        loop.advance(by: .seconds(1))
        guard case .unavailable(let reason)? = events.current.first else { Issue.record("\(events.current)"); return }
        #expect(reason.contains(fake.buffer))
        try fake.appendToBuffer([])
        loop.advance(by: .seconds(3))
        #expect(events.current.count == 2 && events.current.last == .running)
    }

    @Test("factory: auto picks IIO when a driver has bound, else I2C; errors name the bus")
    func factory() throws {
        let fake = try FakeIIO()
        let loop = ManualEventLoop()
        let auto = try makeLinuxIMU(section: section(#"{"backend": "auto", "orientation": "XYZ"}"#), loop: loop,
                                    sysfsRoot: fake.sysfs, devRoot: fake.dev)
        #expect(auto is IIOIMU)
        // With an address, only the IIO device at that I2C client qualifies.
        #expect(throws: HardwareError.self) {
            try makeLinuxIMU(section: section(#"{"backend": "iio", "bus": "/dev/i2c-1", "address": 104}"#), loop: loop,
                             sysfsRoot: fake.sysfs, devRoot: fake.dev)
        }
        let empty = fake.root.path + "/none"
        #expect {
            try makeLinuxIMU(section: section(#"{"backend": "auto", "bus": "/dev/i2c-99"}"#), loop: loop, sysfsRoot: empty)
        } throws: { ($0 as? HardwareError)?.kind == .notFound && "\($0)".contains("/dev/i2c-99") }
        #expect(throws: HardwareError.self) {
            try makeLinuxIMU(section: section(#"{"backend": "iio"}"#), loop: loop, sysfsRoot: empty)
        }
        #expect(throws: HardwareError.self) {
            try makeLinuxIMU(section: section(#"{"backend": "sim"}"#), loop: loop)
        }
        // A board file's address beyond 7 bits is an error, not a trap in UInt8(_:).
        for address in [300, -1, 128] {
            #expect {
                try makeLinuxIMU(section: section(#"{"backend": "i2c", "bus": "/dev/i2c-99", "address": \#(address)}"#), loop: loop)
            } throws: { ($0 as? HardwareError)?.kind == .invalidArgument && "\($0)".contains("7-bit") }
        }
    }

    @Test("an IIO device is matched to its I2C bus and address through the sysfs link")
    func clientMatch() throws {
        let fake = try FakeIIO()
        let fm = FileManager.default
        // Real layout: /sys/bus/iio/devices/iio:device0 -> …/i2c-1/1-0068/iio:device0
        let client = fake.root.path + "/devices/i2c-1/1-0068"
        try fm.createDirectory(atPath: client, withIntermediateDirectories: true)
        try fm.moveItem(atPath: fake.device, toPath: client + "/iio:device0")
        try fm.createSymbolicLink(atPath: fake.device, withDestinationPath: client + "/iio:device0")
        let found = try #require(IIOIMU.find(sysfsRoot: fake.sysfs, devRoot: fake.dev).first)
        #expect(found.i2cClient == "1-0068")
        #expect(found.isOn(bus: "/dev/i2c-1", address: 0x68))
        #expect(!found.isOn(bus: "/dev/i2c-1", address: 0x69) && !found.isOn(bus: "/dev/i2c-0", address: 0x68))
        let imu = try makeLinuxIMU(section: section(#"{"backend": "auto", "bus": "/dev/i2c-1", "address": 104}"#),
                                   loop: ManualEventLoop(), sysfsRoot: fake.sysfs, devRoot: fake.dev)
        #expect(imu is IIOIMU)
    }

    @Test("i2c-dev: a node that is not an adapter fails at I2C_SLAVE with a clear error")
    func i2cDevErrors() {
        #expect {
            try LinuxI2CDevice(path: "/dev/null", address: 0x68)
        } throws: { e in
            guard let e = e as? HardwareError else { return false }
            return e.kind == .unsupported && e.message.contains("I2C_SLAVE") && e.message.contains("null@0x68")
        }
    }
}

import CV4L2
import Foundation
import Glibc
import Hardware
import Syscalls
import Testing
import TestSupport
@testable import LinuxHardware

/// A sysfs and /dev tree with two subdevices: vimc's "Sensor A" (no firmware node) and an IMX708
/// on a device-tree I2C bus, as on a Raspberry Pi.
private struct FakeSubdeviceTree {
    let root: String
    var sysfs: String { root + "/sys" }
    var dev: String { root + "/dev" }
    /// libcamera's id for the IMX708: its device-tree node.
    let imx708ID = "/base/soc/i2c0mux/i2c@1/imx708@1a"

    init() throws {
        root = NSTemporaryDirectory() + "tripod-subdev-\(UUID().uuidString)"
        let fm = FileManager.default
        let node = root + "/sys/firmware/devicetree" + imx708ID
        let device = root + "/sys/devices/platform/soc/i2c0mux/i2c-10/10-001a"
        let classDirectory = root + "/sys/class/video4linux"
        for directory in [node, device, classDirectory + "/v4l-subdev0", classDirectory + "/v4l-subdev2", root + "/dev"] {
            try fm.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        try "Sensor A\n".write(toFile: classDirectory + "/v4l-subdev0/name", atomically: true, encoding: .utf8)
        try "imx708_wide\n".write(toFile: classDirectory + "/v4l-subdev2/name", atomically: true, encoding: .utf8)
        try fm.createSymbolicLink(atPath: classDirectory + "/v4l-subdev2/device", withDestinationPath: device)
        try fm.createSymbolicLink(atPath: device + "/of_node", withDestinationPath: node)
    }

    func remove() { try? FileManager.default.removeItem(atPath: root) }
}

/// The IMX708's subdevice behind the descriptor seam: VIDIOC_QUERYCTRL, G_CTRL and S_CTRL on
/// `wide_dynamic_range`, EBUSY while "streaming", EINVAL for a sensor without the control.
private final class FakeSensorSubdevice: FaultInjectingSyscalls, @unchecked Sendable {
    let node: String
    let hasControl: Bool
    let wideDynamicRange = LockedValue<Int32>(0)
    let streaming = LockedValue(false)
    private let fd: Int32 = 900

    init(node: String, hasControl: Bool = true) { self.node = node; self.hasControl = hasControl }

    override func open(_ path: String, _ flags: Int32, mode: mode_t) throws(SyscallError) -> Int32 {
        guard path == node else { return try super.open(path, flags, mode: mode) }
        try step(.open)
        return fd
    }

    override func close(_ fd: Int32) throws(SyscallError) { if fd != self.fd { try super.close(fd) } }

    override func ioctl(_ fd: Int32, _ request: UInt, pointer: UnsafeMutableRawPointer) throws(SyscallError) {
        guard fd == self.fd else { return try super.ioctl(fd, request, pointer: pointer) }
        try step(.ioctl)
        let wdr = tripod_v4l2_cid_wide_dynamic_range()
        switch request {
        case tripod_vidioc_queryctrl():
            let query = pointer.assumingMemoryBound(to: v4l2_queryctrl.self)
            guard hasControl, query.pointee.id == wdr else { throw SyscallError(errno: EINVAL) }
            query.pointee.type = V4L2_CTRL_TYPE_BOOLEAN.rawValue
            query.pointee.maximum = 1
            query.pointee.flags = 0
        case tripod_vidioc_g_ctrl():
            let control = pointer.assumingMemoryBound(to: v4l2_control.self)
            guard hasControl, control.pointee.id == wdr else { throw SyscallError(errno: EINVAL) }
            control.pointee.value = wideDynamicRange.current
        case tripod_vidioc_s_ctrl():
            let control = pointer.assumingMemoryBound(to: v4l2_control.self)
            guard hasControl, control.pointee.id == wdr else { throw SyscallError(errno: EINVAL) }
            guard !streaming.current else { throw SyscallError(errno: EBUSY) }
            wideDynamicRange.withLock { $0 = control.pointee.value }
        default:
            throw SyscallError(errno: ENOTTY)
        }
    }
}

@Suite struct SensorSubdeviceTests {
    @Test func theSensorIsFoundByItsDeviceTreeNodeThenByItsModel() throws {
        let tree = try FakeSubdeviceTree()
        defer { tree.remove() }
        let imx708 = SensorSubdevice.find(cameraID: tree.imx708ID, model: "", sysfsRoot: tree.sysfs, devRoot: tree.dev)
        #expect(imx708 == SensorSubdevice(node: tree.dev + "/v4l-subdev2", name: "imx708_wide"))
        // vimc has no firmware node: its camera is matched by the sensor's name.
        let vimc = SensorSubdevice.find(cameraID: "platform/vimc.0 Sensor A", model: "Sensor A", sysfsRoot: tree.sysfs, devRoot: tree.dev)
        #expect(vimc?.node == tree.dev + "/v4l-subdev0")
        #expect(SensorSubdevice.find(cameraID: "/base/soc/i2c0mux/i2c@0/imx219@10", model: "imx219",
                                     sysfsRoot: tree.sysfs, devRoot: tree.dev) == nil)
        #expect(SensorSubdevice.find(cameraID: tree.imx708ID, model: "", sysfsRoot: tree.root + "/nowhere", devRoot: tree.dev) == nil)
    }

    /// realpath(3) goes through the seam: EINTR is retried; ENOENT at the subdevice's firmware
    /// node means it is not that camera's (vimc-style matching by model takes over), never a trap.
    @Test func theSubdeviceSearchsRealpathRetriesEINTRAndTakesENOENTAsNoMatch() throws {
        let tree = try FakeSubdeviceTree()
        defer { tree.remove() }
        let interrupted = FaultInjectingSyscalls()
        interrupted.fail(.realpath, errno: EINTR, times: 3)
        #expect(SensorSubdevice.find(cameraID: tree.imx708ID, model: "", sysfsRoot: tree.sysfs, devRoot: tree.dev,
                                     syscalls: RetryingSyscalls(interrupted))?.node == tree.dev + "/v4l-subdev2")
        #expect(interrupted.count(.realpath) > 3)

        // The devicetree directory resolves (call 1); every subdevice's of_node is missing.
        let missing = FaultInjectingSyscalls()
        for call in 2...3 { missing.fail(.realpath, call: call, errno: ENOENT) }
        #expect(SensorSubdevice.find(cameraID: tree.imx708ID, model: "", sysfsRoot: tree.sysfs, devRoot: tree.dev,
                                     syscalls: RetryingSyscalls(missing)) == nil, "no firmware node, no model: no match")
        let byModel = FaultInjectingSyscalls()
        for call in 2...3 { byModel.fail(.realpath, call: call, errno: ENOENT) }
        #expect(SensorSubdevice.find(cameraID: tree.imx708ID, model: "imx708", sysfsRoot: tree.sysfs, devRoot: tree.dev,
                                     syscalls: RetryingSyscalls(byModel))?.node == tree.dev + "/v4l-subdev2",
                "matched by its model instead")
    }

    @Test func theProviderSwitchesWideDynamicRangeOnTheSensorsSubdevice() throws {
        let tree = try FakeSubdeviceTree()
        defer { tree.remove() }
        let subdevice = FakeSensorSubdevice(node: tree.dev + "/v4l-subdev2")
        let provider = LibcameraProvider(syscalls: RetryingSyscalls(subdevice), sysfsRoot: tree.sysfs, devRoot: tree.dev)
        #expect(provider.hasSensorHDR(cameraID: tree.imx708ID))
        #expect(!provider.isSensorHDROn(cameraID: tree.imx708ID))
        try provider.setSensorHDR(true, cameraID: tree.imx708ID)
        #expect(subdevice.wideDynamicRange.current == 1)
        #expect(provider.isSensorHDROn(cameraID: tree.imx708ID))
        try provider.setSensorHDR(false, cameraID: tree.imx708ID)
        #expect(subdevice.wideDynamicRange.current == 0)
    }

    @Test func aSensorWithoutTheControlOrAStreamingOneIsAClearError() throws {
        let tree = try FakeSubdeviceTree()
        defer { tree.remove() }
        let plain = FakeSensorSubdevice(node: tree.dev + "/v4l-subdev2", hasControl: false)
        let provider = LibcameraProvider(syscalls: RetryingSyscalls(plain), sysfsRoot: tree.sysfs, devRoot: tree.dev)
        #expect(!provider.hasSensorHDR(cameraID: tree.imx708ID))
        #expect(throws: HardwareError.self) { try provider.setSensorHDR(true, cameraID: tree.imx708ID) }
        do {
            try provider.setSensorHDR(true, cameraID: tree.imx708ID)
        } catch let error as HardwareError {
            #expect(error.kind == .unsupported && error.message.contains("no wide_dynamic_range control"), "\(error)")
        }

        let busy = FakeSensorSubdevice(node: tree.dev + "/v4l-subdev2")
        busy.streaming.withLock { $0 = true }
        let streaming = LibcameraProvider(syscalls: RetryingSyscalls(busy), sysfsRoot: tree.sysfs, devRoot: tree.dev)
        do {
            try streaming.setSensorHDR(true, cameraID: tree.imx708ID)
            Issue.record("a streaming sensor's control changed")
        } catch let error as HardwareError {
            #expect(error.kind == .busy && error.message.contains("v4l-subdev2: wide_dynamic_range on"), "\(error)")
        }
        #expect(busy.wideDynamicRange.current == 0)

        // An interrupted open is retried; a refused one (permissions) is an error naming the node.
        let interrupted = FakeSensorSubdevice(node: tree.dev + "/v4l-subdev2")
        interrupted.fail(.open, errno: EINTR)
        try LibcameraProvider(syscalls: RetryingSyscalls(interrupted), sysfsRoot: tree.sysfs, devRoot: tree.dev).setSensorHDR(true, cameraID: tree.imx708ID)
        #expect(interrupted.wideDynamicRange.current == 1)
        let denied = FakeSensorSubdevice(node: tree.dev + "/v4l-subdev2")
        denied.fail(.open, errno: EACCES, times: 2)
        #expect(!LibcameraProvider(syscalls: RetryingSyscalls(denied), sysfsRoot: tree.sysfs, devRoot: tree.dev).hasSensorHDR(cameraID: tree.imx708ID))
        do {
            try LibcameraProvider(syscalls: RetryingSyscalls(denied), sysfsRoot: tree.sysfs, devRoot: tree.dev).setSensorHDR(true, cameraID: tree.imx708ID)
            Issue.record("a denied open went through")
        } catch let error as HardwareError {
            #expect(error.message.contains("v4l-subdev2") && error.errno == EACCES, "\(error)")
        }
    }
}

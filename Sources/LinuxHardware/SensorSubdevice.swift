import CV4L2
import Foundation  // FileManager, String(contentsOfFile:)
import Glibc
import Hardware
import Syscalls

/// A camera sensor's V4L2 subdevice (`/dev/v4l-subdevN`), found through sysfs.
public struct SensorSubdevice: Sendable, Equatable {
    /// The device node, "/dev/v4l-subdev2".
    public var node: String
    /// The subdevice's sysfs `name`, "imx708" or "imx708_wide".
    public var name: String

    public init(node: String, name: String) { self.node = node; self.name = name }

    /// The subdevice of libcamera camera `cameraID`, or nil. libcamera names a device-tree sensor by
    /// its firmware node ("/base/soc/i2c0mux/i2c@1/imx708@1a"), which is the subdevice's
    /// `device/of_node` under /sys/firmware/devicetree; a sensor without one (ACPI, vimc) is the one
    /// subdevice whose name starts with the camera's model, when exactly one does.
    /// `realpath(3)` goes through `syscalls`: a link that does not resolve (ENOENT, or any other
    /// errno) is not the camera's.
    public static func find(cameraID: String, model: String, sysfsRoot: String = "/sys",
                            devRoot: String = "/dev", syscalls: any SystemCalls = SystemSyscalls()) -> SensorSubdevice? {
        let classDirectory = sysfsRoot + "/class/video4linux"
        let entries = ((try? FileManager.default.contentsOfDirectory(atPath: classDirectory)) ?? [])
            .filter { $0.hasPrefix("v4l-subdev") }.sorted()
        let devicetree = (try? syscalls.realPath(sysfsRoot + "/firmware/devicetree")) ?? sysfsRoot + "/firmware/devicetree"
        var byModel: [SensorSubdevice] = []
        for entry in entries {
            let directory = classDirectory + "/" + entry
            let name = ((try? String(contentsOfFile: directory + "/name", encoding: .utf8)) ?? "")
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let subdevice = SensorSubdevice(node: devRoot + "/" + entry, name: name)
            if let node = try? syscalls.realPath(directory + "/device/of_node"), node.hasPrefix(devicetree),
               String(node.dropFirst(devicetree.count)) == cameraID {
                return subdevice
            }
            if !model.isEmpty, name.lowercased().hasPrefix(model.lowercased()) { byModel.append(subdevice) }
        }
        return byModel.count == 1 ? byModel[0] : nil
    }
}

/// The sensor's own HDR on its subdevice: the V4L2 control `V4L2_CID_WIDE_DYNAMIC_RANGE` (the
/// IMX708 driver's `wide_dynamic_range`), read and set with VIDIOC_QUERYCTRL, VIDIOC_G_CTRL and
/// VIDIOC_S_CTRL through the descriptor seam. The driver refuses a change while the sensor streams
/// (EBUSY).
public struct SensorHDRControl: Sendable {
    let syscalls: any SystemCalls

    public init(syscalls: any SystemCalls = SystemSyscalls()) { self.syscalls = syscalls }

    /// True when the subdevice has the control and it is not disabled (VIDIOC_QUERYCTRL).
    public func isPresent(on subdevice: SensorSubdevice) throws(SyscallError) -> Bool {
        try withDescriptor(subdevice) { fd throws(SyscallError) in
            var query = v4l2_queryctrl()
            query.id = tripod_v4l2_cid_wide_dynamic_range()
            do throws(SyscallError) {
                try syscalls.ioctl(fd, tripod_vidioc_queryctrl(), pointer: &query)
            } catch {
                if error.errno == EINVAL { return false }  // the sensor has no such control
                throw error
            }
            return query.flags & UInt32(V4L2_CTRL_FLAG_DISABLED) == 0
        }
    }

    /// The control's value (VIDIOC_G_CTRL).
    public func isOn(on subdevice: SensorSubdevice) throws(SyscallError) -> Bool {
        try withDescriptor(subdevice) { fd throws(SyscallError) in
            var control = v4l2_control(id: tripod_v4l2_cid_wide_dynamic_range(), value: 0)
            try syscalls.ioctl(fd, tripod_vidioc_g_ctrl(), pointer: &control)
            return control.value != 0
        }
    }

    /// Sets the control (VIDIOC_S_CTRL); EBUSY while the sensor streams.
    public func set(_ on: Bool, on subdevice: SensorSubdevice) throws(SyscallError) {
        try withDescriptor(subdevice) { fd throws(SyscallError) in
            var control = v4l2_control(id: tripod_v4l2_cid_wide_dynamic_range(), value: on ? 1 : 0)
            try syscalls.ioctl(fd, tripod_vidioc_s_ctrl(), pointer: &control)
        }
    }

    private func withDescriptor<T>(_ subdevice: SensorSubdevice, _ body: (Int32) throws(SyscallError) -> T) throws(SyscallError) -> T {
        let fd = try syscalls.open(subdevice.node, O_RDWR | O_CLOEXEC)
        defer { try? syscalls.close(fd) }
        return try body(fd)
    }
}

import Hardware
import Syscalls

/// Tells when the kernel reports a DRM hot-plug: a non-blocking netlink socket
/// (`socket(AF_NETLINK, SOCK_DGRAM, NETLINK_KOBJECT_UEVENT)`, kernel multicast group 1) whose
/// messages with `SUBSYSTEM=drm` and `HOTPLUG=1` mean "re-probe the connectors". Its socket, bind
/// and receive go through the descriptor seam (`DescriptorSyscalls`).
///
/// Poll `hotplugOccurred()` from the display thread or a loop timer, then call
/// `DisplayDevice.checkConnection()`. Where the socket cannot be opened (some containers),
/// re-probing on a timer alone works too, only slower to notice.
public final class DRMHotplugMonitor {
    public let fd: Int32
    private let syscalls: any SystemCalls

    public convenience init() throws(HardwareError) {
        try self.init(syscalls: SystemSyscalls())
    }

    /// Opens and binds the uevent socket through `syscalls`; a bind that fails closes it.
    init(syscalls: any SystemCalls) throws(HardwareError) {
        self.syscalls = syscalls
        let fd: Int32
        do { fd = try syscalls.netlinkSocket(protocol: Self.netlinkKobjectUevent) } catch {
            throw error.hardwareError("uevent netlink: socket")
        }
        do { try syscalls.bind(fd, netlinkGroups: Self.kernelGroup) } catch {
            try? syscalls.close(fd)
            throw error.hardwareError("uevent netlink: bind")
        }
        self.fd = fd
    }

    deinit { try? syscalls.close(fd) }

    /// `NETLINK_KOBJECT_UEVENT` from linux/netlink.h (not exposed by Glibc's module; including
    /// that header in a C module clashes with Glibc's own socket declarations).
    static let netlinkKobjectUevent: Int32 = 15

    /// The kernel's uevent multicast group (bit mask), as udev's own listener binds.
    static let kernelGroup: UInt32 = 1

    /// Drains pending uevents; true if any was a DRM hot-plug. Never blocks: any failed receive
    /// (EAGAIN when drained; the seam retries EINTR) ends the drain; what is left waits for the next poll.
    public func hotplugOccurred() -> Bool {
        var found = false
        var buffer = [UInt8](repeating: 0, count: 8192)
        while true {
            guard let n = try? buffer.withUnsafeMutableBytes({ raw throws(SyscallError) in try syscalls.read(fd, raw) }),
                  n > 0 else { break }
            if Self.isDRMHotplug(Array(buffer[0..<n])) { found = true }
        }
        return found
    }

    /// A uevent message is NUL-separated "KEY=value" fields after an "action@devpath" header.
    public static func isDRMHotplug(_ message: [UInt8]) -> Bool {
        let fields = message.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        return fields.contains("SUBSYSTEM=drm") && fields.contains("HOTPLUG=1")
    }
}

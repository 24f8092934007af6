import Glibc
import Hardware

/// Tells when the kernel reports a DRM hot-plug: a non-blocking netlink socket
/// (`socket(AF_NETLINK, SOCK_DGRAM, NETLINK_KOBJECT_UEVENT)`, kernel multicast group 1) whose
/// messages with `SUBSYSTEM=drm` and `HOTPLUG=1` mean "re-probe the connectors".
///
/// Poll `hotplugOccurred()` from the display thread or a loop timer, then call
/// `DisplayDevice.checkConnection()`. Where the socket cannot be opened (some containers),
/// re-probing on a timer alone works too, only slower to notice.
public final class DRMHotplugMonitor {
    public let fd: Int32

    public init() throws(HardwareError) {
        let fd = socket(AF_NETLINK, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
                        Self.netlinkKobjectUevent)
        guard fd >= 0 else { throw DRMCard.error(errno, "uevent netlink: socket") }
        var address = NetlinkAddress(family: sa_family_t(AF_NETLINK), pad: 0, portID: 0, groups: 1)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<NetlinkAddress>.size)) }
        }
        guard bound == 0 else {
            let e = errno
            close(fd)
            throw DRMCard.error(e, "uevent netlink: bind")
        }
        self.fd = fd
    }

    deinit { close(fd) }

    /// `NETLINK_KOBJECT_UEVENT` from linux/netlink.h (not exposed by Glibc's module; including
    /// that header in a C module clashes with Glibc's own socket declarations).
    static let netlinkKobjectUevent: Int32 = 15

    /// `struct sockaddr_nl` from linux/netlink.h, same layout (12 bytes).
    struct NetlinkAddress {
        var family: sa_family_t
        var pad: UInt16
        var portID: UInt32
        var groups: UInt32
    }

    /// Drains pending uevents; true if any was a DRM hot-plug. Never blocks.
    public func hotplugOccurred() -> Bool {
        var found = false
        var buffer = [UInt8](repeating: 0, count: 8192)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { break }
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

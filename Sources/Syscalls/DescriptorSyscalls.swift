import Glibc
import Hardware

/// The system calls Tripod makes on descriptors, in one place like `StorageSyscalls`: device
/// nodes (i2c-dev, the IIO buffer, DRM), the DRM hot-plug uevent netlink socket, serial ports, the
/// control socket and its clients, stdin and stdout. Tests inject errnos at any of them
/// (`FaultInjectingDescriptorSyscalls`). Each call is made once: retrying EINTR is the caller's
/// job, so injected EINTRs exercise the real retry loops. A failure is a `SyscallError`;
/// `SyscallError.hardwareError` turns it into a `HardwareError` through the one errno mapping
/// (`HardwareError.Kind(errno:)`).
public protocol DescriptorSyscalls: Sendable {
    /// open(2).
    func open(_ path: String, _ flags: Int32) throws(SyscallError) -> Int32
    /// close(2); its errors are not actionable.
    func close(_ fd: Int32)
    /// One read(2); 0 at end of file. EAGAIN on a non-blocking descriptor with nothing to read.
    func read(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) throws(SyscallError) -> Int
    /// One write(2); may write fewer bytes than asked.
    func write(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) throws(SyscallError) -> Int
    /// One send(2) on a socket with MSG_NOSIGNAL (a client that hung up is EPIPE, never SIGPIPE),
    /// and MSG_DONTWAIT when `waits` is false; may send fewer bytes than asked.
    func send(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, waits: Bool) throws(SyscallError) -> Int
    /// fstat(2) says `fd` is a socket.
    func isSocket(_ fd: Int32) -> Bool
    /// ioctl(2) with an integer argument (I2C_SLAVE).
    func ioctl(_ fd: Int32, _ request: UInt, value: CInt) throws(SyscallError)
    /// ioctl(2) with a pointer argument (I2C_FUNCS, I2C_RDWR).
    func ioctl(_ fd: Int32, _ request: UInt, pointer: UnsafeMutableRawPointer) throws(SyscallError)
    /// shutdown(2) SHUT_RDWR: a blocked read returns end of input, a blocked write fails. ENOTSOCK
    /// on anything but a socket, which callers ignore.
    func shutdown(_ fd: Int32) throws(SyscallError)
    /// tcgetattr(3).
    func terminalAttributes(_ fd: Int32) throws(SyscallError) -> termios
    /// tcsetattr(3) with TCSANOW.
    func setTerminalAttributes(_ fd: Int32, _ attributes: termios) throws(SyscallError)
    /// socket(2) AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC.
    func unixStreamSocket() throws(SyscallError) -> Int32
    /// bind(2) to a Unix address.
    func bind(_ fd: Int32, _ address: sockaddr_un) throws(SyscallError)
    /// listen(2).
    func listen(_ fd: Int32, backlog: Int32) throws(SyscallError)
    /// accept(2), then close-on-exec (fcntl FD_CLOEXEC): the client's descriptor.
    func accept(_ fd: Int32) throws(SyscallError) -> Int32
    /// connect(2) to a Unix address.
    func connect(_ fd: Int32, _ address: sockaddr_un) throws(SyscallError)
    /// unlink(2).
    func unlink(_ path: String) throws(SyscallError)
    /// chmod(2).
    func chmod(_ path: String, _ mode: mode_t) throws(SyscallError)
    /// socket(2) AF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, of a netlink `protocol`
    /// (NETLINK_KOBJECT_UEVENT). Read it with `read` (recv(2) without flags).
    func netlinkSocket(protocol: Int32) throws(SyscallError) -> Int32
    /// bind(2) to a netlink address (`struct sockaddr_nl`, port 0: the kernel's choice) receiving
    /// the kernel's multicast `groups` (a bit mask).
    func bind(_ fd: Int32, netlinkGroups groups: UInt32) throws(SyscallError)
}

/// `struct sockaddr_nl` from linux/netlink.h, same layout (12 bytes); Glibc's module does not
/// expose that header (including it in a C module clashes with Glibc's own socket declarations).
public struct NetlinkAddress: Sendable {
    public var family: sa_family_t
    public var pad: UInt16
    public var portID: UInt32
    public var groups: UInt32

    public init(portID: UInt32 = 0, groups: UInt32) {
        family = sa_family_t(AF_NETLINK); pad = 0; self.portID = portID; self.groups = groups
    }
}

/// The real calls, straight to Glibc.
public struct SystemDescriptorSyscalls: DescriptorSyscalls {
    public init() {}

    private func check(_ result: Int32) throws(SyscallError) {
        if result < 0 { throw SyscallError(errno: Glibc.errno) }
    }

    public func open(_ path: String, _ flags: Int32) throws(SyscallError) -> Int32 {
        let fd = Glibc.open(path, flags)
        try check(fd)
        return fd
    }

    public func close(_ fd: Int32) { Glibc.close(fd) }

    public func read(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) throws(SyscallError) -> Int {
        let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
        if n < 0 { throw SyscallError(errno: Glibc.errno) }
        return n
    }

    public func write(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) throws(SyscallError) -> Int {
        let n = Glibc.write(fd, buffer.baseAddress, buffer.count)
        if n < 0 { throw SyscallError(errno: Glibc.errno) }
        return n
    }

    public func send(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, waits: Bool) throws(SyscallError) -> Int {
        let n = Glibc.send(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL | (waits ? 0 : MSG_DONTWAIT)))
        if n < 0 { throw SyscallError(errno: Glibc.errno) }
        return n
    }

    public func isSocket(_ fd: Int32) -> Bool {
        var info = stat()
        return fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFSOCK
    }

    public func ioctl(_ fd: Int32, _ request: UInt, value: CInt) throws(SyscallError) {
        try check(Glibc.ioctl(fd, request, value))
    }

    public func ioctl(_ fd: Int32, _ request: UInt, pointer: UnsafeMutableRawPointer) throws(SyscallError) {
        try check(Glibc.ioctl(fd, request, pointer))
    }

    public func shutdown(_ fd: Int32) throws(SyscallError) { try check(Glibc.shutdown(fd, Int32(SHUT_RDWR))) }

    public func terminalAttributes(_ fd: Int32) throws(SyscallError) -> termios {
        var attributes = termios()
        try check(tcgetattr(fd, &attributes))
        return attributes
    }

    public func setTerminalAttributes(_ fd: Int32, _ attributes: termios) throws(SyscallError) {
        var attributes = attributes
        try check(tcsetattr(fd, TCSANOW, &attributes))
    }

    public func unixStreamSocket() throws(SyscallError) -> Int32 {
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        try check(fd)
        return fd
    }

    public func bind(_ fd: Int32, _ address: sockaddr_un) throws(SyscallError) {
        var address = address
        try check(withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        })
    }

    public func listen(_ fd: Int32, backlog: Int32) throws(SyscallError) { try check(Glibc.listen(fd, backlog)) }

    public func accept(_ fd: Int32) throws(SyscallError) -> Int32 {
        let client = Glibc.accept(fd, nil, nil)
        try check(client)
        _ = fcntl(client, F_SETFD, FD_CLOEXEC)
        return client
    }

    public func connect(_ fd: Int32, _ address: sockaddr_un) throws(SyscallError) {
        var address = address
        try check(withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        })
    }

    public func unlink(_ path: String) throws(SyscallError) { try check(Glibc.unlink(path)) }

    public func chmod(_ path: String, _ mode: mode_t) throws(SyscallError) { try check(Glibc.chmod(path, mode)) }

    public func netlinkSocket(protocol: Int32) throws(SyscallError) -> Int32 {
        let fd = Glibc.socket(AF_NETLINK, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), `protocol`)
        try check(fd)
        return fd
    }

    public func bind(_ fd: Int32, netlinkGroups groups: UInt32) throws(SyscallError) {
        var address = NetlinkAddress(groups: groups)
        try check(withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, socklen_t(MemoryLayout<NetlinkAddress>.size)) }
        })
    }
}

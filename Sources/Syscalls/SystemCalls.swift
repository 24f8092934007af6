import Glibc
import Hardware

/// The system calls Tripod makes, in one seam of two parts: `DescriptorSyscalls` (descriptors:
/// device nodes, sockets, terminals, poll) and `FileSyscalls` (files and directories by path, the
/// storage's calls). `SystemCalls` is both. An implementation makes each call once and lets EINTR
/// through: `GlibcSyscalls` is the real one, `FaultInjectingSyscalls` (TestSupport) the test double.
/// Callers hold `RetryingSyscalls` around one of them (`SystemSyscalls()` in the firmware), which
/// retries EINTR, so no caller writes its own EINTR loop and a test injects EINTR below the retry.
/// A failure is a `SyscallError`; `SyscallError.hardwareError` turns it into a `HardwareError`
/// through the one errno mapping (`HardwareError.Kind(errno:)`).
public protocol DescriptorSyscalls: Sendable {
    /// open(2) with `mode` for a file O_CREAT makes.
    func open(_ path: String, _ flags: Int32, mode: mode_t) throws(SyscallError) -> Int32
    /// close(2). Never retried: Linux has released the descriptor even when it reports an error.
    func close(_ fd: Int32) throws(SyscallError)
    /// One read(2); 0 at end of file. EAGAIN on a non-blocking descriptor with nothing to read.
    func read(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) throws(SyscallError) -> Int
    /// One write(2); may write fewer bytes than asked.
    func write(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) throws(SyscallError) -> Int
    /// One send(2) on a socket with MSG_NOSIGNAL (a client that hung up is EPIPE, never SIGPIPE),
    /// and MSG_DONTWAIT when `waits` is false; may send fewer bytes than asked.
    func send(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, waits: Bool) throws(SyscallError) -> Int
    /// poll(2) of one descriptor for `events` (POLLIN…), at most `timeoutMilliseconds` (−1: no
    /// limit); the returned events, 0 when the time ran out.
    func poll(_ fd: Int32, events: Int16, timeoutMilliseconds: Int32) throws(SyscallError) -> Int16
    /// fstat(2) says `fd` is a socket.
    func isSocket(_ fd: Int32) -> Bool
    /// ioctl(2) with an integer argument (I2C_SLAVE).
    func ioctl(_ fd: Int32, _ request: UInt, value: CInt) throws(SyscallError)
    /// ioctl(2) with a pointer argument (I2C_FUNCS, I2C_RDWR, VIDIOC_*).
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
    /// connect(2) to a Unix address. Not retried on EINTR: the connection then goes on in the
    /// background, and a second connect would say EALREADY.
    func connect(_ fd: Int32, _ address: sockaddr_un) throws(SyscallError)
    /// chmod(2).
    func chmod(_ path: String, _ mode: mode_t) throws(SyscallError)
    /// socket(2) AF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, of a netlink `protocol`
    /// (NETLINK_KOBJECT_UEVENT). Read it with `read` (recv(2) without flags).
    func netlinkSocket(protocol: Int32) throws(SyscallError) -> Int32
    /// bind(2) to a netlink address (`struct sockaddr_nl`, port 0: the kernel's choice) receiving
    /// the kernel's multicast `groups` (a bit mask).
    func bind(_ fd: Int32, netlinkGroups groups: UInt32) throws(SyscallError)
    /// An IPv4 UDP socket for a multicast `group` and `port` (addresses in dotted form), SOCK_NONBLOCK
    /// and SOCK_CLOEXEC: socket(2), then for `receiving` SO_REUSEADDR, bind(2) to the port on every
    /// address and IP_ADD_MEMBERSHIP on `interface` (nil: any); else IP_MULTICAST_IF `interface`,
    /// IP_MULTICAST_LOOP on, IP_MULTICAST_TTL 1, and connect(2) to the group, so `send` reaches it.
    func multicastSocket(group: String, port: UInt16, interface: String?, receiving: Bool) throws(SyscallError) -> Int32
}

/// The calls on files and directories by path: what `PosixStorage` and the sysfs searches make.
public protocol FileSyscalls: Sendable {
    /// fsync(2).
    func fsync(_ fd: Int32) throws(SyscallError)
    /// sync_file_range(2) of the whole file with SYNC_FILE_RANGE_WRITE: starts writing its dirty
    /// pages to the medium and returns without waiting (an fsync still makes them durable).
    func startWriteback(_ fd: Int32) throws(SyscallError)
    /// lseek(2) with SEEK_SET; the new offset.
    func seek(_ fd: Int32, to offsetBytes: Int64) throws(SyscallError) -> Int64
    /// rename(2).
    func rename(_ from: String, _ to: String) throws(SyscallError)
    /// unlink(2).
    func unlink(_ path: String) throws(SyscallError)
    /// mkdir(2).
    func mkdir(_ path: String, _ mode: mode_t) throws(SyscallError)
    /// rmdir(2).
    func rmdir(_ path: String) throws(SyscallError)
    /// lstat(2) succeeded.
    func exists(_ path: String) -> Bool
    /// opendir(3)/readdir(3): every name but "." and "..".
    func listDirectory(_ path: String) throws(SyscallError) -> [String]
    /// fstatvfs(2) on the opened directory: f_bavail × f_frsize.
    func availableBytes(_ path: String) throws(SyscallError) -> Int64
    /// realpath(3): `path` with every symbolic link resolved (ENOENT when a part is missing).
    func realPath(_ path: String) throws(SyscallError) -> String
}

/// Every call of the seam, both parts.
public protocol SystemCalls: DescriptorSyscalls, FileSyscalls {}

extension DescriptorSyscalls {
    /// open(2) without a mode (nothing is created).
    public func open(_ path: String, _ flags: Int32) throws(SyscallError) -> Int32 {
        try open(path, flags, mode: 0)
    }
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

/// The seam the firmware uses: the real calls with EINTR retried.
public typealias SystemSyscalls = RetryingSyscalls<GlibcSyscalls>

extension RetryingSyscalls where Raw == GlibcSyscalls {
    /// The real calls (`GlibcSyscalls`) with EINTR retried.
    public init() { self.init(GlibcSyscalls()) }
}

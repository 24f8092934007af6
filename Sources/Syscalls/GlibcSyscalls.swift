import CFileSync
import Glibc
import Hardware

/// The real calls, straight to Glibc, each made once: EINTR comes back as a `SyscallError`
/// (`RetryingSyscalls` retries it).
public struct GlibcSyscalls: SystemCalls {
    public init() {}

    private func check(_ result: Int32) throws(SyscallError) {
        if result < 0 { throw SyscallError(errno: Glibc.errno) }
    }

    private func check(_ result: Int) throws(SyscallError) -> Int {
        if result < 0 { throw SyscallError(errno: Glibc.errno) }
        return result
    }

    // MARK: descriptors

    public func open(_ path: String, _ flags: Int32, mode: mode_t) throws(SyscallError) -> Int32 {
        let fd = Glibc.open(path, flags, mode)
        try check(fd)
        return fd
    }

    public func close(_ fd: Int32) throws(SyscallError) { try check(Glibc.close(fd)) }

    public func read(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) throws(SyscallError) -> Int {
        try check(Glibc.read(fd, buffer.baseAddress, buffer.count))
    }

    public func write(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) throws(SyscallError) -> Int {
        try check(Glibc.write(fd, buffer.baseAddress, buffer.count))
    }

    public func send(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, waits: Bool) throws(SyscallError) -> Int {
        try check(Glibc.send(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL | (waits ? 0 : MSG_DONTWAIT))))
    }

    public func poll(_ fd: Int32, events: Int16, timeoutMilliseconds: Int32) throws(SyscallError) -> Int16 {
        var descriptor = pollfd(fd: fd, events: events, revents: 0)
        let ready = Glibc.poll(&descriptor, 1, timeoutMilliseconds)
        try check(ready)
        return ready == 0 ? 0 : descriptor.revents
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

    public func multicastSocket(group: String, port: UInt16, interface: String?, receiving: Bool) throws(SyscallError) -> Int32 {
        var groupAddress = in_addr(), interfaceAddress = in_addr(s_addr: INADDR_ANY)
        guard inet_pton(AF_INET, group, &groupAddress) == 1,
              interface.map({ inet_pton(AF_INET, $0, &interfaceAddress) == 1 }) ?? true else { throw SyscallError(errno: EINVAL) }
        let fd = Glibc.socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        try check(fd)
        func option<T: BitwiseCopyable>(_ level: Int32, _ name: Int32, _ value: T) throws(SyscallError) {
            try check(withUnsafeBytes(of: value) { Glibc.setsockopt(fd, level, name, $0.baseAddress, socklen_t($0.count)) })
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        do throws(SyscallError) {
            if receiving {
                try option(SOL_SOCKET, SO_REUSEADDR, Int32(1))
                address.sin_addr = in_addr(s_addr: INADDR_ANY)
                try check(withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                })
                try option(Int32(IPPROTO_IP), IP_ADD_MEMBERSHIP, ip_mreq(imr_multiaddr: groupAddress, imr_interface: interfaceAddress))
            } else {
                try option(Int32(IPPROTO_IP), IP_MULTICAST_IF, interfaceAddress)
                try option(Int32(IPPROTO_IP), IP_MULTICAST_LOOP, UInt8(1))
                try option(Int32(IPPROTO_IP), IP_MULTICAST_TTL, UInt8(1))
                address.sin_addr = groupAddress
                try check(withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                })
            }
        } catch {
            Glibc.close(fd)
            throw error
        }
        return fd
    }

    // MARK: files

    public func fsync(_ fd: Int32) throws(SyscallError) { try check(Glibc.fsync(fd)) }

    public func startWriteback(_ fd: Int32) throws(SyscallError) {
        try check(sync_file_range(fd, 0, 0, UInt32(TRIPOD_SYNC_FILE_RANGE_WRITE)))
    }

    public func seek(_ fd: Int32, to offsetBytes: Int64) throws(SyscallError) -> Int64 {
        let result = Glibc.lseek(fd, off_t(offsetBytes), SEEK_SET)
        if result < 0 { throw SyscallError(errno: Glibc.errno) }
        return Int64(result)
    }

    public func rename(_ from: String, _ to: String) throws(SyscallError) { try check(Glibc.rename(from, to)) }
    public func unlink(_ path: String) throws(SyscallError) { try check(Glibc.unlink(path)) }
    public func mkdir(_ path: String, _ mode: mode_t) throws(SyscallError) { try check(Glibc.mkdir(path, mode)) }
    public func rmdir(_ path: String) throws(SyscallError) { try check(Glibc.rmdir(path)) }

    public func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    public func listDirectory(_ path: String) throws(SyscallError) -> [String] {
        guard let dir = opendir(path) else { throw SyscallError(errno: Glibc.errno) }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    public func availableBytes(_ path: String) throws(SyscallError) -> Int64 {
        // fstatvfs: the name `statvfs` resolves to the struct in Swift, not the call.
        let fd = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        try check(fd)
        defer { Glibc.close(fd) }
        var info = statvfs()
        try check(fstatvfs(fd, &info))
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    public func realPath(_ path: String) throws(SyscallError) -> String {
        guard let resolved = Glibc.realpath(path, nil) else { throw SyscallError(errno: Glibc.errno) }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

import Glibc
import Syscalls

/// A pipe: (read end, write end), both closed by the caller.
public func makePipe() throws -> (read: Int32, write: Int32) {
    var fds: [Int32] = [-1, -1]
    guard pipe(&fds) == 0 else { throw SyscallError(errno: errno) }
    return (fds[0], fds[1])
}

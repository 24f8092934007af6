import Glibc
import Hardware
import Testing

/// One errno mapping for every system call (issue 20: it was written six times, and the copies
/// disagreed: the serial port called an unknown errno an I/O error, storage called ENODEV "other").
@Test func everyErrnoMapsToOneKind() {
    let expected: [(Int32, HardwareError.Kind)] = [
        (ENOENT, .notFound), (ENODEV, .notFound), (ENXIO, .notFound), (ENOTDIR, .notFound),
        (EBUSY, .busy), (EACCES, .permission), (EPERM, .permission), (EROFS, .permission),
        (EINVAL, .invalidArgument), (EEXIST, .invalidArgument), (ENOSPC, .noSpace), (EDQUOT, .noSpace),
        (EOPNOTSUPP, .unsupported), (ENOTTY, .unsupported), (ETIMEDOUT, .timeout), (EIO, .io), (EREMOTEIO, .io),
        (EAGAIN, .other),
    ]
    for (code, kind) in expected {
        #expect(HardwareError.Kind(errno: code) == kind, "errno \(code)")
    }
}

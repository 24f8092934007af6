#if canImport(Glibc)
import Glibc
#endif

extension HardwareError.Kind {
    /// The one mapping of an errno to a kind, for every system call Tripod makes: storage, serial,
    /// sockets, I2C, IIO, GPIO and DRM.
    public init(errno code: Int32) {
        switch code {
        case ENOENT, ENODEV, ENXIO, ENOTDIR: self = .notFound
        case EBUSY: self = .busy
        case EACCES, EPERM, EROFS: self = .permission
        case EINVAL, ENAMETOOLONG, EEXIST, EISDIR: self = .invalidArgument
        case ENOSPC, EDQUOT, ENOMEM: self = .noSpace
        case EOPNOTSUPP, ENOTTY: self = .unsupported
        case ETIMEDOUT: self = .timeout
        case EIO, EREMOTEIO: self = .io
        default: self = .other
        }
    }
}

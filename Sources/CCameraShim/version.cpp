// Version, logging and error helpers.
#include "shim_internal.hpp"

#include <cerrno>
#include <cstring>

extern "C" const char *tc_libcamera_version(void) {
    static const std::string version = libcamera::CameraManager::version();
    return version.c_str();
}

extern "C" const char *tc_libcamera_header_version(void) {
    static const std::string version = std::to_string(LIBCAMERA_VERSION_MAJOR) + "." +
                                       std::to_string(LIBCAMERA_VERSION_MINOR) + "." +
                                       std::to_string(LIBCAMERA_VERSION_PATCH);
    return version.c_str();
}

extern "C" void tc_log_set_level(const char *category, const char *level) {
    if (category && level)
        libcamera::logSetLevel(category, level);
}

extern "C" const char *tc_status_name(tc_status status) {
    switch (status) {
    case TC_OK: return "ok";
    case TC_ERR_NOT_FOUND: return "not found";
    case TC_ERR_BUSY: return "busy";
    case TC_ERR_INVALID_ARGUMENT: return "invalid argument";
    case TC_ERR_UNSUPPORTED: return "unsupported";
    case TC_ERR_STATE: return "wrong state";
    case TC_ERR_IO: return "I/O error";
    case TC_ERR_NO_MEMORY: return "out of memory";
    case TC_ERR_DISCONNECTED: return "disconnected";
    case TC_ERR_OTHER: return "error";
    }
    return "error";
}

namespace tc {

tc_status statusFromErrno(int negativeErrno) {
    switch (-negativeErrno) {
    case 0: return TC_OK;
    case ENOENT: return TC_ERR_NOT_FOUND;
    case ENODEV: case ENXIO: return TC_ERR_DISCONNECTED;
    case EBUSY: return TC_ERR_BUSY;
    case EINVAL: case ERANGE: case EXDEV: return TC_ERR_INVALID_ARGUMENT;
    case EACCES: case EPERM: return TC_ERR_STATE;  // libcamera's "wrong camera state"
    case ENOMEM: return TC_ERR_NO_MEMORY;
    case EIO: return TC_ERR_IO;
    case ENOTSUP: return TC_ERR_UNSUPPORTED;
    default: return TC_ERR_OTHER;
    }
}

std::string errnoMessage(const std::string &call, int negativeErrno) {
    return call + ": " + std::strerror(-negativeErrno) + " (errno " + std::to_string(-negativeErrno) + ")";
}

} // namespace tc

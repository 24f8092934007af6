#include "tripod_camera.h"
#include <libcamera/camera_manager.h>
#include <string>

extern "C" const char *tc_libcamera_version(void) {
    static const std::string version = libcamera::CameraManager::version();
    return version.c_str();
}

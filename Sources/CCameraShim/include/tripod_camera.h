/* extern "C" API over libcamera. Placeholder until the shim lands. */
#ifndef TRIPOD_CAMERA_H
#define TRIPOD_CAMERA_H
#ifdef __cplusplus
extern "C" {
#endif
/** libcamera's version string (libcamera::CameraManager::version()). */
const char *tc_libcamera_version(void);
#ifdef __cplusplus
}
#endif
#endif

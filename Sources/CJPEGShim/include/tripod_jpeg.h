// A setjmp-guarded libjpeg-turbo compressor for Swift: libjpeg's default error handler exits the
// process and `jpeg_create_compress` is a macro, so neither can be used from Swift directly.
#ifndef TRIPOD_JPEG_H
#define TRIPOD_JPEG_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Memory order of the input pixels, 3 bytes each.
typedef enum {
    TRIPOD_JPEG_RGB = 0, ///< R, G, B (libcamera/DRM "BGR888")
    TRIPOD_JPEG_BGR = 1, ///< B, G, R (libcamera/DRM "RGB888")
} tripod_jpeg_order;

/// Compresses an 8-bit, 3-channel image to baseline JPEG in memory (jpeg_CreateCompress,
/// jpeg_mem_dest, jpeg_write_scanlines), with `app1` (may be NULL) written as an APP1 marker
/// right after SOI and no JFIF APP0. The JPEG goes into `initial` (`initial_capacity` bytes; may
/// be NULL and 0) while it fits. Returns 1 on success with *out and *out_count: *out is `initial`
/// when it fit, else a buffer libjpeg malloc'd (the caller frees it; `initial` stays the caller's);
/// 0 on failure with libjpeg's message in `error` (never exits the process).
int tripod_jpeg_compress(const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride,
                         tripod_jpeg_order order, int quality, const uint8_t *app1, size_t app1_count,
                         uint8_t *initial, size_t initial_capacity,
                         uint8_t **out, size_t *out_count, char *error, size_t error_capacity);

#ifdef __cplusplus
}
#endif
#endif

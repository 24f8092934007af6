// What FFmpeg's headers offer only as macros (AVERROR, AVERROR_EOF, AV_NOPTS_VALUE, av_err2str)
// or as fixed-size arrays that import into Swift as tuples (AVFrame data/linesize), as functions.
#ifndef TRIPOD_AV_H
#define TRIPOD_AV_H
#include <stddef.h>
#include <stdint.h>
#include <libavcodec/avcodec.h>

struct SwsContext;

#ifdef __cplusplus
extern "C" {
#endif

/// AVERROR(EAGAIN): the encoder wants more input (or its output read) first.
int tripod_av_error_again(void);
/// AVERROR_EOF: the encoder is fully drained.
int tripod_av_error_eof(void);
/// AVERROR(code) for a POSIX errno, as returned from AVIO callbacks.
int tripod_av_error_from_errno(int code);
/// AV_NOPTS_VALUE.
int64_t tripod_av_nopts(void);
/// av_strerror into `buffer` (always terminated).
void tripod_av_describe(int code, char *buffer, size_t capacity);
/// frame->data[plane] and frame->linesize[plane].
uint8_t *tripod_av_frame_plane(AVFrame *frame, int plane);
int tripod_av_frame_linesize(const AVFrame *frame, int plane);
/// Points `frame` (format, size, data, linesize, buf[0]) at an I420 image in memory the caller owns:
/// Y at `base` with `stride`, U and V after it with `stride / 2` (libcamera's YUV420 layout).
/// av_buffer_create wraps the memory, so the encoder references it instead of copying;
/// `release(opaque, base)` runs when FFmpeg drops its last reference. Returns 0, or a negative
/// AVERROR (then `release` is never called).
int tripod_av_frame_wrap_i420(AVFrame *frame, uint8_t *base, size_t size, int width, int height,
                              int stride, void (*release)(void *opaque, uint8_t *data), void *opaque);
/// Source layouts `tripod_sws_to_i420` reads: packed RGB by memory byte order, or I420.
enum tripod_packed_rgb { TRIPOD_RGB_RGB24 = 0, TRIPOD_RGB_BGR24 = 1, TRIPOD_RGB_BGRX32 = 2, TRIPOD_I420 = 3 };
/// Cuts the rectangle (`crop_x`, `crop_y`, `crop_width`, `crop_height`; even for I420) out of a
/// source image of `source_height` lines (packed RGB at full range, or I420 laid out as in
/// `tripod_av_frame_wrap_i420`) and scales it to a `width` × `height` I420 image at `destination`
/// (chroma stride = `destination_stride / 2`), Rec. 709 limited range like libcamera's video
/// streams, with libswscale (sws_getCachedContext, sws_setColorspaceDetails, sws_scale).
/// `*context` is created on first use and reused; free it with `tripod_sws_free`. Returns 0, or a
/// negative AVERROR.
int tripod_sws_to_i420(struct SwsContext **context, const uint8_t *source, int source_stride, int layout,
                       int source_height, int crop_x, int crop_y, int crop_width, int crop_height,
                       uint8_t *destination, int destination_stride, int width, int height);
/// sws_freeContext.
void tripod_sws_free(struct SwsContext *context);
/// Routes FFmpeg's log to nothing below `level` (av_log_set_level).
void tripod_av_quiet(int level);

#ifdef __cplusplus
}
#endif
#endif

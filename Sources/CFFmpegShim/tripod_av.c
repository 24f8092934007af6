#include <libswscale/swscale.h>
#include "tripod_av.h"
#include <stdio.h>
#include <errno.h>
#include <libavutil/error.h>
#include <libavutil/log.h>

int tripod_av_error_again(void) { return AVERROR(EAGAIN); }
int tripod_av_error_eof(void) { return AVERROR_EOF; }
int tripod_av_error_from_errno(int code) { return AVERROR(code); }
int64_t tripod_av_nopts(void) { return AV_NOPTS_VALUE; }

void tripod_av_describe(int code, char *buffer, size_t capacity) {
    if (capacity == 0) return;
    if (av_strerror(code, buffer, capacity) < 0) {
        snprintf(buffer, capacity, "FFmpeg error %d", code);
    }
    buffer[capacity - 1] = '\0';
}

uint8_t *tripod_av_frame_plane(AVFrame *frame, int plane) {
    return (plane >= 0 && plane < AV_NUM_DATA_POINTERS) ? frame->data[plane] : NULL;
}

int tripod_av_frame_linesize(const AVFrame *frame, int plane) {
    return (plane >= 0 && plane < AV_NUM_DATA_POINTERS) ? frame->linesize[plane] : 0;
}

void tripod_av_quiet(int level) { av_log_set_level(level); }

int tripod_av_frame_wrap_i420(AVFrame *frame, uint8_t *base, size_t size, int width, int height,
                              int stride, void (*release)(void *opaque, uint8_t *data), void *opaque) {
    size_t chroma_stride = (size_t)stride / 2;
    size_t luma = (size_t)stride * (size_t)height;
    size_t chroma = chroma_stride * (size_t)((height + 1) / 2);
    if (width <= 0 || height <= 0 || stride < width || luma + 2 * chroma > size) return AVERROR(EINVAL);
    AVBufferRef *buffer = av_buffer_create(base, size, release, opaque, AV_BUFFER_FLAG_READONLY);
    if (!buffer) return AVERROR(ENOMEM);
    av_buffer_unref(&frame->buf[0]);
    frame->buf[0] = buffer;
    frame->format = AV_PIX_FMT_YUV420P;
    frame->width = width;
    frame->height = height;
    frame->data[0] = base;
    frame->data[1] = base + luma;
    frame->data[2] = base + luma + chroma;
    frame->linesize[0] = stride;
    frame->linesize[1] = (int)chroma_stride;
    frame->linesize[2] = (int)chroma_stride;
    return 0;
}

int tripod_sws_to_i420(struct SwsContext **context, const uint8_t *source, int source_stride, int layout,
                       int source_height, int crop_x, int crop_y, int crop_width, int crop_height,
                       uint8_t *destination, int destination_stride, int width, int height) {
    enum AVPixelFormat format;
    int bytes_per_pixel = 0;
    switch (layout) {
    case TRIPOD_RGB_RGB24: format = AV_PIX_FMT_RGB24; bytes_per_pixel = 3; break;
    case TRIPOD_RGB_BGR24: format = AV_PIX_FMT_BGR24; bytes_per_pixel = 3; break;
    case TRIPOD_RGB_BGRX32: format = AV_PIX_FMT_BGR0; bytes_per_pixel = 4; break;
    case TRIPOD_I420: format = AV_PIX_FMT_YUV420P; break;
    default: return AVERROR(EINVAL);
    }
    if (width <= 0 || height <= 0 || destination_stride < width || crop_width <= 0 || crop_height <= 0 ||
        crop_x < 0 || crop_y < 0 || crop_y + crop_height > source_height) return AVERROR(EINVAL);
    if (layout == TRIPOD_I420 && ((crop_x | crop_y) & 1)) return AVERROR(EINVAL);
    struct SwsContext *made = sws_getCachedContext(*context, crop_width, crop_height, format, width, height,
                                                   AV_PIX_FMT_YUV420P, SWS_BILINEAR, NULL, NULL, NULL);
    if (!made) return AVERROR(ENOMEM);
    *context = made;
    // Y'CbCr out with Rec. 709 coefficients at limited (MPEG) range; RGB in at full range, I420 in
    // as libcamera's video streams are (Rec. 709, limited).
    const int *rec709 = sws_getCoefficients(SWS_CS_ITU709);
    int source_full_range = layout == TRIPOD_I420 ? 0 : 1;
    if (sws_setColorspaceDetails(made, rec709, source_full_range, rec709, 0, 0, 1 << 16, 1 << 16) < 0) return AVERROR(EINVAL);
    const uint8_t *in[4] = {NULL, NULL, NULL, NULL};
    int in_strides[4] = {source_stride, 0, 0, 0};
    if (layout == TRIPOD_I420) {
        int chroma_stride = source_stride / 2;
        const uint8_t *u = source + (size_t)source_stride * source_height;
        const uint8_t *v = u + (size_t)chroma_stride * ((source_height + 1) / 2);
        in[0] = source + (size_t)crop_y * source_stride + crop_x;
        in[1] = u + (size_t)(crop_y / 2) * chroma_stride + crop_x / 2;
        in[2] = v + (size_t)(crop_y / 2) * chroma_stride + crop_x / 2;
        in_strides[1] = chroma_stride;
        in_strides[2] = chroma_stride;
    } else {
        in[0] = source + (size_t)crop_y * source_stride + (size_t)crop_x * bytes_per_pixel;
    }
    int chroma_stride = destination_stride / 2;
    uint8_t *planes[4] = {destination, destination + (size_t)destination_stride * height, NULL, NULL};
    planes[2] = planes[1] + (size_t)chroma_stride * ((height + 1) / 2);
    int strides[4] = {destination_stride, chroma_stride, chroma_stride, 0};
    int rows = sws_scale(made, in, in_strides, 0, crop_height, planes, strides);
    return rows == height ? 0 : AVERROR(EINVAL);
}

void tripod_sws_free(struct SwsContext *context) { sws_freeContext(context); }

#include "tripod_jpeg.h"
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>

struct guarded_error {
    struct jpeg_error_mgr manager;   // must be first: libjpeg sees a jpeg_error_mgr*
    jmp_buf escape;
    char message[JMSG_LENGTH_MAX];
};

static void error_exit_by_longjmp(j_common_ptr cinfo) {
    struct guarded_error *e = (struct guarded_error *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, e->message);
    longjmp(e->escape, 1);
}

static void silent_output(j_common_ptr cinfo) { (void)cinfo; }

int tripod_jpeg_compress(const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride,
                         tripod_jpeg_order order, int quality, const uint8_t *app1, size_t app1_count,
                         uint8_t *initial, size_t initial_capacity,
                         uint8_t **out, size_t *out_count, char *error, size_t error_capacity) {
    struct jpeg_compress_struct cinfo;
    struct guarded_error err;
    // volatile: these change between setjmp and a possible longjmp.
    // jpeg_mem_dest writes into `initial` while it has room; past it libjpeg mallocs a buffer twice
    // the size, copies, and frees only buffers of its own, never `initial`.
    unsigned char *volatile buffer = initial_capacity > 0 ? initial : NULL;
    unsigned long volatile buffer_size = initial_capacity > 0 ? (unsigned long)initial_capacity : 0;
    memset(&cinfo, 0, sizeof cinfo);
    memset(&err, 0, sizeof err);
    cinfo.err = jpeg_std_error(&err.manager);
    err.manager.error_exit = error_exit_by_longjmp;
    err.manager.output_message = silent_output;
    if (setjmp(err.escape)) {
        jpeg_destroy_compress(&cinfo);
        if (buffer != initial) free(buffer);
        snprintf(error, error_capacity, "%s", err.message);
        return 0;
    }
    jpeg_CreateCompress(&cinfo, JPEG_LIB_VERSION, sizeof cinfo);
    jpeg_mem_dest(&cinfo, (unsigned char **)&buffer, (unsigned long *)&buffer_size);
    cinfo.image_width = width;
    cinfo.image_height = height;
    cinfo.input_components = 3;
    cinfo.in_color_space = order == TRIPOD_JPEG_BGR ? JCS_EXT_BGR : JCS_EXT_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    cinfo.write_JFIF_header = FALSE;   // EXIF APP1 goes first
    jpeg_start_compress(&cinfo, TRUE);
    if (app1 && app1_count > 0) {
        if (app1_count > 65533) {
            snprintf(err.message, sizeof err.message, "APP1 segment of %zu bytes exceeds 65533", app1_count);
            longjmp(err.escape, 1);
        }
        jpeg_write_marker(&cinfo, JPEG_APP0 + 1, app1, (unsigned int)app1_count);
    }
    // Rows in batches: libjpeg takes as many as it can per call (a whole iMCU row at 4:2:0).
    enum { BATCH = 32 };
    JSAMPROW rows[BATCH];
    while (cinfo.next_scanline < cinfo.image_height) {
        JDIMENSION count = 0;
        while (count < BATCH && cinfo.next_scanline + count < cinfo.image_height) {
            rows[count] = (JSAMPROW)(pixels + (size_t)(cinfo.next_scanline + count) * stride);
            count++;
        }
        jpeg_write_scanlines(&cinfo, rows, count);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    *out = buffer;
    *out_count = buffer_size;
    return 1;
}

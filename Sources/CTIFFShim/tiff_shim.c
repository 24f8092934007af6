#include "tripod_tiff.h"
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>

struct tripod_tiff {
    TIFF *tif;
    tripod_tiff_sink sink;
    uint64_t size;      // bytes of file written (high-water mark)
    uint64_t position;
    int failed;         // a write did not reach the sink
};

static _Thread_local char last_error[512];

static void record_error(const char *module, const char *fmt, va_list ap) {
    char message[400];
    vsnprintf(message, sizeof message, fmt, ap);
    snprintf(last_error, sizeof last_error, "%s: %s", module ? module : "libtiff", message);
}

static void ignore_warning(const char *module, const char *fmt, va_list ap) {
    (void)module; (void)fmt; (void)ap;
}

const char *tripod_tiff_last_error(void) { return last_error; }

static tmsize_t sink_read(thandle_t h, void *buf, tmsize_t n) {
    tripod_tiff *t = (tripod_tiff *)h;
    if (t->position >= t->size) return 0;
    uint64_t available = t->size - t->position;
    size_t count = (uint64_t)n < available ? (size_t)n : (size_t)available;
    int64_t done = t->sink.read(t->sink.context, buf, count, t->position);
    if (done < 0) return -1;
    t->position += (uint64_t)done;
    return (tmsize_t)done;
}

static tmsize_t sink_write(thandle_t h, void *buf, tmsize_t n) {
    tripod_tiff *t = (tripod_tiff *)h;
    int64_t done = n > 0 ? t->sink.write(t->sink.context, buf, (size_t)n, t->position) : 0;
    if (done != (int64_t)n) { t->failed = 1; return -1; }
    t->position += (uint64_t)n;
    if (t->position > t->size) t->size = t->position;
    return n;
}

static toff_t sink_seek(thandle_t h, toff_t offset, int whence) {
    tripod_tiff *t = (tripod_tiff *)h;
    int64_t base = whence == SEEK_CUR ? (int64_t)t->position : whence == SEEK_END ? (int64_t)t->size : 0;
    int64_t target = base + (int64_t)offset;
    if (target < 0) return (toff_t)-1;
    t->position = (uint64_t)target;
    return (toff_t)target;
}

static int sink_close(thandle_t h) { (void)h; return 0; }
static toff_t sink_size(thandle_t h) { return ((tripod_tiff *)h)->size; }
static int sink_map(thandle_t h, void **base, toff_t *size) { (void)h; (void)base; (void)size; return 0; }
static void sink_unmap(thandle_t h, void *base, toff_t size) { (void)h; (void)base; (void)size; }

// DNG tags libtiff 4.5 has no definition for (TIFFSetField refuses an unknown tag).
static const TIFFFieldInfo dng_extra_fields[] = {
    // PreviewColorSpace (DNG 1.2): LONG, one value.
    { 50970, 1, 1, TIFF_LONG, FIELD_CUSTOM, 1, 0, "PreviewColorSpace" },
};
static TIFFExtendProc previous_extender;
static pthread_once_t extender_once = PTHREAD_ONCE_INIT;

// Runs for every directory libtiff sets up (TIFFDefaultDirectory); TIFFMergeFieldInfo skips tags
// it already knows, so a libtiff that defines them keeps its own definitions.
static void add_dng_fields(TIFF *tif) {
    TIFFMergeFieldInfo(tif, dng_extra_fields, sizeof dng_extra_fields / sizeof dng_extra_fields[0]);
    if (previous_extender) previous_extender(tif);
}

static void install_extender(void) { previous_extender = TIFFSetTagExtender(add_dng_fields); }

tripod_tiff *tripod_tiff_open_sink(tripod_tiff_sink sink) {
    pthread_once(&extender_once, install_extender);
    TIFFSetErrorHandler(record_error);
    TIFFSetWarningHandler(ignore_warning);
    last_error[0] = 0;
    tripod_tiff *t = calloc(1, sizeof *t);
    if (!t) { snprintf(last_error, sizeof last_error, "out of memory"); return NULL; }
    t->sink = sink;
    // "m": never memory-map (our map proc declines anyway).
    t->tif = TIFFClientOpen("sink", "wlm", (thandle_t)t, sink_read, sink_write, sink_seek,
                            sink_close, sink_size, sink_map, sink_unmap);
    if (!t->tif) { free(t); return NULL; }
    return t;
}

int tripod_tiff_close(tripod_tiff *t) {
    if (!t) return 0;
    TIFFClose(t->tif);
    int ok = !t->failed;
    if (!ok && !last_error[0]) snprintf(last_error, sizeof last_error, "a write did not reach the file");
    free(t);
    return ok;
}

uint64_t tripod_tiff_size(const tripod_tiff *t) { return t->size; }

static const TIFFField *field(tripod_tiff *t, uint32_t tag) {
    const TIFFField *f = TIFFFieldWithTag(t->tif, tag);
    if (!f) snprintf(last_error, sizeof last_error, "libtiff does not know tag %u", tag);
    return f;
}

int tripod_tiff_set_uint(tripod_tiff *t, uint32_t tag, uint32_t value) {
    const TIFFField *f = field(t, tag);
    if (!f) return 0;
    if (TIFFFieldSetGetSize(f) == 8) return TIFFSetField(t->tif, tag, (uint64_t)value);
    return TIFFSetField(t->tif, tag, value);   // uint16 and uint32 both travel as int-sized
}

int tripod_tiff_set_real(tripod_tiff *t, uint32_t tag, double value) {
    const TIFFField *f = field(t, tag);
    if (!f) return 0;
    if (TIFFFieldSetGetSize(f) == 4) return TIFFSetField(t->tif, tag, (double)(float)value); // float promotes
    return TIFFSetField(t->tif, tag, value);
}

int tripod_tiff_set_string(tripod_tiff *t, uint32_t tag, const char *value) {
    if (!field(t, tag)) return 0;
    return TIFFSetField(t->tif, tag, value);
}

// Arrays: pass the count first when the field definition says so (TIFFFieldPassCount).
#define SET_ARRAY(t, tag, count, ptr)                                        \
    do {                                                                     \
        const TIFFField *f_ = field(t, tag);                                 \
        if (!f_) return 0;                                                   \
        if (TIFFFieldPassCount(f_)) return TIFFSetField((t)->tif, tag, (count), (ptr)); \
        return TIFFSetField((t)->tif, tag, (ptr));                           \
    } while (0)

int tripod_tiff_set_bytes(tripod_tiff *t, uint32_t tag, uint32_t count, const uint8_t *values) {
    SET_ARRAY(t, tag, count, values);
}

int tripod_tiff_set_uint16_array(tripod_tiff *t, uint32_t tag, uint32_t count, const uint16_t *values) {
    SET_ARRAY(t, tag, count, values);
}

int tripod_tiff_set_uint32_array(tripod_tiff *t, uint32_t tag, uint32_t count, const uint32_t *values) {
    SET_ARRAY(t, tag, count, values);
}

int tripod_tiff_set_real_array(tripod_tiff *t, uint32_t tag, uint32_t count, const double *values) {
    const TIFFField *f = field(t, tag);
    if (!f) return 0;
    if (TIFFFieldSetGetSize(f) == 4) {
        float *floats = malloc(sizeof(float) * (count ? count : 1));
        if (!floats) return 0;
        for (uint32_t i = 0; i < count; i++) floats[i] = (float)values[i];
        int ok = TIFFFieldPassCount(f) ? TIFFSetField(t->tif, tag, count, floats)
                                       : TIFFSetField(t->tif, tag, floats);
        free(floats);  // libtiff copies the values
        return ok;
    }
    SET_ARRAY(t, tag, count, values);
}

int tripod_tiff_set_uint_pair(tripod_tiff *t, uint32_t tag, uint16_t first, uint16_t second) {
    if (!field(t, tag)) return 0;
    return TIFFSetField(t->tif, tag, (int)first, (int)second);  // uint16 travels as int
}

int tripod_tiff_set_subifd_count(tripod_tiff *t, uint16_t count) {
    uint64_t offsets[16] = {0};  // placeholders; TIFFWriteDirectory of each SubIFD fills them in
    if (count > 16) { snprintf(last_error, sizeof last_error, "%u SubIFDs: at most 16", count); return 0; }
    return TIFFSetField(t->tif, TIFFTAG_SUBIFD, (int)count, offsets);
}

uint32_t tripod_tiff_tile_count(tripod_tiff *t) { return TIFFNumberOfTiles(t->tif); }

int tripod_tiff_write_raw_tile(tripod_tiff *t, uint32_t tile, const void *bytes, size_t count) {
    return TIFFWriteRawTile(t->tif, tile, (void *)bytes, (tmsize_t)count) == (tmsize_t)count;
}

int tripod_tiff_write_raw_strip(tripod_tiff *t, uint32_t strip, const void *bytes, size_t count) {
    return TIFFWriteRawStrip(t->tif, strip, (void *)bytes, (tmsize_t)count) == (tmsize_t)count;
}

int tripod_tiff_write_directory(tripod_tiff *t) { return TIFFWriteDirectory(t->tif); }

int tripod_tiff_begin_exif(tripod_tiff *t) { return TIFFCreateEXIFDirectory(t->tif) == 0; }

int tripod_tiff_end_exif(tripod_tiff *t, uint64_t *exif_offset) {
    if (!TIFFWriteCustomDirectory(t->tif, exif_offset)) return 0;
    return TIFFCreateDirectory(t->tif) == 0;
}

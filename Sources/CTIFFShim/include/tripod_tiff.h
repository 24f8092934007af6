// Typed wrappers over libtiff for Swift: TIFFSetField is variadic and does not import, and
// libtiff's default error handler prints to stderr. Files are written through a caller's sink
// (TIFFClientOpen with procs over positioned writes and reads). DNG tags
// libtiff 4.5 does not know (PreviewColorSpace, 50970) are registered through a tag extender
// (TIFFSetTagExtender + TIFFMergeFieldInfo) installed on the first open.
#ifndef TRIPOD_TIFF_H
#define TRIPOD_TIFF_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A TIFF being written through a sink (opaque).
typedef struct tripod_tiff tripod_tiff;

/// Where a TIFF's bytes go: positioned writes and reads on the caller's side (a file streamed to
/// storage, or memory). The shim keeps libtiff's file position and size, so the caller sees
/// pwrite/pread-like calls. Each returns the bytes done, or -1 (libtiff then fails the call).
typedef struct {
    void *context;
    /// Writes `count` bytes at `offset` (a write past the end leaves zeros in the gap).
    int64_t (*write)(void *context, const void *bytes, size_t count, uint64_t offset);
    /// Reads at most `count` bytes at `offset` (libtiff reads back what it wrote, e.g. to link directories).
    int64_t (*read)(void *context, void *bytes, size_t count, uint64_t offset);
} tripod_tiff_sink;

/// Opens an empty little-endian TIFF for writing into `sink` (TIFFClientOpen, mode "wlm", with
/// read/write/seek/size procs over the sink). Returns NULL on failure; `tripod_tiff_last_error()`
/// says why.
tripod_tiff *tripod_tiff_open_sink(tripod_tiff_sink sink);
/// TIFFClose (which writes any pending directory), then frees `t`. Returns 1 when every write
/// reached the sink, 0 otherwise.
int tripod_tiff_close(tripod_tiff *t);
/// The file's size so far: the furthest byte written.
uint64_t tripod_tiff_size(const tripod_tiff *t);

/// TIFFSetField with one integer (SHORT/LONG tags). Returns 1 on success.
int tripod_tiff_set_uint(tripod_tiff *t, uint32_t tag, uint32_t value);
/// TIFFSetField with one floating value (RATIONAL/FLOAT/DOUBLE tags; the shim passes float or
/// double as libtiff's field definition wants).
int tripod_tiff_set_real(tripod_tiff *t, uint32_t tag, double value);
/// TIFFSetField with a NUL-terminated string (ASCII tags).
int tripod_tiff_set_string(tripod_tiff *t, uint32_t tag, const char *value);
/// TIFFSetField with an array of bytes (BYTE/UNDEFINED tags); passes the count when the field wants it.
int tripod_tiff_set_bytes(tripod_tiff *t, uint32_t tag, uint32_t count, const uint8_t *values);
/// TIFFSetField with an array of 16-bit integers (SHORT tags with a count, e.g. CFARepeatPatternDim).
int tripod_tiff_set_uint16_array(tripod_tiff *t, uint32_t tag, uint32_t count, const uint16_t *values);
/// TIFFSetField with an array of reals (RATIONAL/SRATIONAL arrays: ColorMatrix1, AsShotNeutral, BlackLevel).
int tripod_tiff_set_real_array(tripod_tiff *t, uint32_t tag, uint32_t count, const double *values);
/// TIFFSetField with an array of 32-bit integers (LONG arrays: WhiteLevel).
int tripod_tiff_set_uint32_array(tripod_tiff *t, uint32_t tag, uint32_t count, const uint32_t *values);

/// TIFFSetField with two 16-bit values passed separately (YCbCrSubSampling: horizontal, vertical).
int tripod_tiff_set_uint_pair(tripod_tiff *t, uint32_t tag, uint16_t first, uint16_t second);
/// TIFFSetField(TIFFTAG_SUBIFD, count, offsets of 0): the current directory gets `count` SubIFDs,
/// and the next `count` directories written (tripod_tiff_write_directory) are those SubIFDs;
/// libtiff fills in their offsets.
int tripod_tiff_set_subifd_count(tripod_tiff *t, uint16_t count);

/// TIFFNumberOfTiles of the current (tiled) directory: what TIFFWriteRawTile's index runs below.
uint32_t tripod_tiff_tile_count(tripod_tiff *t);
/// TIFFWriteRawTile: tile `tile`'s bytes, already compressed, appended as they are (no codec runs,
/// so Compression may name one libtiff cannot encode with, e.g. 7 with 16-bit samples). Returns 1
/// when all `count` bytes were written.
int tripod_tiff_write_raw_tile(tripod_tiff *t, uint32_t tile, const void *bytes, size_t count);
/// TIFFWriteRawStrip: strip `strip`'s bytes, already compressed (e.g. a whole baseline JPEG).
/// Returns 1 when all `count` bytes were written.
int tripod_tiff_write_raw_strip(tripod_tiff *t, uint32_t strip, const void *bytes, size_t count);

/// TIFFWriteDirectory: finishes the current directory (the main image, or the next SubIFD).
int tripod_tiff_write_directory(tripod_tiff *t);
/// TIFFCreateEXIFDirectory: following set calls fill the EXIF IFD. Call this first, before
/// any main-image tag: the EXIF IFD goes at the start of the file.
int tripod_tiff_begin_exif(tripod_tiff *t);
/// TIFFWriteCustomDirectory for the EXIF IFD (its offset in *exif_offset), then
/// TIFFCreateDirectory for the main image: set TIFFTAG_EXIFIFD to *exif_offset there. (Writing
/// the EXIF IFD first keeps the main IFD in one piece; rewriting it afterwards leaves a layout
/// dcraw 9.28 cannot read.)
int tripod_tiff_end_exif(tripod_tiff *t, uint64_t *exif_offset);

/// The last libtiff error or warning message on this thread ("" when none).
const char *tripod_tiff_last_error(void);

#ifdef __cplusplus
}
#endif
#endif

#include <stdint.h>

/// glibc's sync_file_range(2) (fcntl.h declares it only under _GNU_SOURCE).
extern int sync_file_range(int fd, int64_t offset, int64_t nbytes, unsigned int flags);
/// SYNC_FILE_RANGE_WRITE: start writing the range's dirty pages out, without waiting for them.
#define TRIPOD_SYNC_FILE_RANGE_WRITE 2

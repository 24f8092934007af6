/*
 * tripod_camera.h: a plain C API over libcamera. One source builds against Debian's 0.0.3 and Raspberry
 * Pi's fork (0.5.x and 0.7.x, tagged +rpt); what differs between versions stays inside the shim.
 *
 * Handles are opaque. Every call that can fail returns a tc_status; the handle it was called on then
 * holds a message naming the call (tc_*_last_error), valid until the next call on that handle.
 *
 * Threading. Manager, camera and control-list calls are made from one thread at a time (the
 * caller's event loop). The event callback (tc_camera_set_event_callback) runs on libcamera's own
 * thread: it must copy what it needs and return without blocking (no locks held across waits, no
 * calls back into tc_camera_* except tc_completion_* and tc_buffer_release). tc_buffer_release may
 * be called from any thread.
 *
 * Only one manager may be started per process at a time (libcamera allows one CameraManager).
 */
#ifndef TRIPOD_CAMERA_H
#define TRIPOD_CAMERA_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

/** What a call did. libcamera's negative errno values are mapped onto these. */
typedef enum tc_status {
    TC_OK = 0,
    TC_ERR_NOT_FOUND = 1,        /* no such camera / entry (ENODEV, ENOENT) */
    TC_ERR_BUSY = 2,             /* in use: camera acquired elsewhere, manager exists, no free buffer */
    TC_ERR_INVALID_ARGUMENT = 3, /* bad value, wrong type, invalid configuration (EINVAL, ERANGE) */
    TC_ERR_UNSUPPORTED = 4,      /* the camera (or this libcamera) has no such control */
    TC_ERR_STATE = 5,            /* wrong state for the call: not configured, not started (EACCES) */
    TC_ERR_IO = 6,               /* device or mmap error (EIO) */
    TC_ERR_NO_MEMORY = 7,        /* ENOMEM */
    TC_ERR_DISCONNECTED = 8,     /* the camera went away (ENODEV after open) */
    TC_ERR_OTHER = 9
} tc_status;

/** A control value's element type: libcamera's ControlType, in the shim's own numbering (libcamera
 *  renumbered its enum in 0.4; the shim converts by name). UINT16, UINT32 and POINT exist from 0.4. */
typedef enum tc_value_type {
    TC_VALUE_NONE = 0,
    TC_VALUE_BOOL = 1,      /* elements are C bool (1 byte) */
    TC_VALUE_BYTE = 2,      /* uint8_t */
    TC_VALUE_INT32 = 3,     /* int32_t */
    TC_VALUE_INT64 = 4,     /* int64_t */
    TC_VALUE_FLOAT = 5,     /* float */
    TC_VALUE_STRING = 6,    /* char, count = bytes, not NUL-terminated */
    TC_VALUE_RECTANGLE = 7, /* tc_rect */
    TC_VALUE_SIZE = 8,      /* tc_size */
    TC_VALUE_UINT16 = 9,    /* uint16_t */
    TC_VALUE_UINT32 = 10,   /* uint32_t */
    TC_VALUE_POINT = 11     /* tc_point */
} tc_value_type;

/** libcamera's Rectangle (same layout). */
typedef struct tc_rect { int32_t x; int32_t y; uint32_t width; uint32_t height; } tc_rect;
/** libcamera's Size (same layout). */
typedef struct tc_size { uint32_t width; uint32_t height; } tc_size;
/** libcamera's Point (same layout). */
typedef struct tc_point { int32_t x; int32_t y; } tc_point;

/**
 * One control value: `count` elements of `type` at `data`. Values returned by the shim point into
 * memory the shim owns (valid as documented per call); values passed in are copied.
 */
typedef struct tc_value {
    tc_value_type type;
    bool is_array;
    size_t count;
    const void *data;
} tc_value;

/** libcamera's properties::Location. */
typedef enum tc_location {
    TC_LOCATION_FRONT = 0, TC_LOCATION_BACK = 1, TC_LOCATION_EXTERNAL = 2, TC_LOCATION_UNKNOWN = 3
} tc_location;

/** libcamera's StreamRole. */
typedef enum tc_role { TC_ROLE_RAW = 0, TC_ROLE_STILL = 1, TC_ROLE_VIDEO = 2, TC_ROLE_VIEWFINDER = 3 } tc_role;

/** libcamera's CameraConfiguration::Status. */
typedef enum tc_config_status { TC_CONFIG_VALID = 0, TC_CONFIG_ADJUSTED = 1, TC_CONFIG_INVALID = 2 } tc_config_status;

typedef struct tc_manager tc_manager;     /* a CameraManager, started or stopped */
typedef struct tc_camera tc_camera;       /* an acquired Camera with its configuration and buffers */
typedef struct tc_controls tc_controls;   /* a ControlList whose entries are set and read by name */
typedef struct tc_completion tc_completion; /* a completed Request, lent to the event callback */

/** The version string of the libcamera this process runs with (libcamera::CameraManager::version()),
 *  e.g. "v0.0.3", "v0.7.1" (a tarball build) or "v0.7.1+rpt20260429" (a build from the git tag). */
const char *tc_libcamera_version(void);
/** The version of the libcamera headers the shim was compiled against (LIBCAMERA_VERSION_*),
 *  "major.minor.patch". A mismatch with tc_libcamera_version means the wrong library was linked. */
const char *tc_libcamera_header_version(void);
/** libcamera::logSetLevel(category, level), e.g. ("*", "ERROR"). */
void tc_log_set_level(const char *category, const char *level);
/** A fixed English name for a status ("busy", "unsupported", ...). */
const char *tc_status_name(tc_status status);

/* ---- Manager: CameraManager start/stop and enumeration ---- */

/** A stopped manager. NULL only when out of memory. */
tc_manager *tc_manager_create(void);
/** Stops (if started) and frees. Cameras opened from it must be closed first (if not, nothing is
 *  freed: the manager is leaked rather than destroyed under them). */
void tc_manager_destroy(tc_manager *manager);
/** Constructs and starts a CameraManager (CameraManager::start). BUSY if one exists in this process. */
tc_status tc_manager_start(tc_manager *manager);
/** Stops and destroys the CameraManager. BUSY (nothing done) while cameras are open. */
tc_status tc_manager_stop(tc_manager *manager);
const char *tc_manager_last_error(const tc_manager *manager);

/** What libcamera says about one camera. Strings are owned by the manager (see count). */
typedef struct tc_camera_info {
    const char *id;
    const char *model;               /* properties::Model, "" when absent */
    tc_location location;            /* properties::Location */
    tc_size pixel_array_size;        /* properties::PixelArraySize, 0x0 when absent */
    tc_size unit_cell_size_nm;       /* properties::UnitCellSize in nanometres, 0x0 when absent */
} tc_camera_info;

/** Takes a snapshot of CameraManager::cameras() and returns its length (0 when stopped). Strings
 *  of earlier tc_manager_camera_info calls stay valid until the next snapshot or stop. */
size_t tc_manager_camera_count(tc_manager *manager);
/** Entry `index` of the last snapshot. NOT_FOUND when out of range. */
tc_status tc_manager_camera_info(tc_manager *manager, size_t index, tc_camera_info *out);

/** CameraManager::get(id) + Camera::acquire(). NOT_FOUND names the id; BUSY if acquired elsewhere. */
tc_status tc_camera_open(tc_manager *manager, const char *id, tc_camera **out);
/** Stops streaming, frees buffers, Camera::release(). Every lent buffer must be released first. */
void tc_camera_close(tc_camera *camera);
const char *tc_camera_last_error(const tc_camera *camera);

/* ---- Controls the camera supports: Camera::controls() (changes after configure) ---- */

/** One entry of the camera's ControlInfoMap. Pointers are valid until the next count call. */
typedef struct tc_control_info {
    const char *name;       /* ControlId::name() */
    tc_value_type type;     /* ControlId::type() */
    bool array_shape_known; /* true from 0.4 (ControlId::isArray/size); false before, when the
                               ControlId cannot say: is_array and array_length are then false, 0 */
    bool is_array;          /* ControlId::isArray() */
    size_t array_length;    /* ControlId::size() for a fixed-length array, 0 for any length */
    tc_value min, max, def; /* ControlInfo::min/max/def; type NONE when not given */
} tc_control_info;

/** Snapshots Camera::controls() and returns the number of entries. */
size_t tc_camera_control_info_count(tc_camera *camera);
tc_status tc_camera_control_info_at(tc_camera *camera, size_t index, tc_control_info *out);
/** The entry named `name`, from a fresh snapshot. UNSUPPORTED when the camera has no such control. */
tc_status tc_camera_control_info_find(tc_camera *camera, const char *name, tc_control_info *out);

/* ---- Configuration: generateConfiguration, validate, configure, FrameBufferAllocator ---- */

/** Generates a configuration for one role and snapshots its StreamFormats. `*format_count` is the
 *  number of pixel formats. UNSUPPORTED when the camera cannot produce the role. */
tc_status tc_camera_stream_formats(tc_camera *camera, tc_role role, size_t *format_count);
/** Pixel format `index` of the last snapshot: its name and discrete sizes (StreamFormats::sizes).
 *  Pointers are valid until the next tc_camera_stream_formats. */
tc_status tc_camera_stream_format_at(tc_camera *camera, size_t index, const char **pixel_format,
                                     const tc_size **sizes, size_t *size_count);

/** One stream of a configuration. Fields marked in/out are requests (0 or "" = role default) and are
 *  overwritten with what validation chose. */
typedef struct tc_stream_config {
    tc_role role;            /* in */
    char pixel_format[32];   /* in/out: libcamera name, "BGR888", "SRGGB10_CSI2P" */
    tc_size size;            /* in/out */
    uint32_t buffer_count;   /* in/out */
    uint32_t stride;         /* out: bytes per line */
    uint32_t frame_size;     /* out: bytes per frame */
} tc_stream_config;

/** generateConfiguration(roles), applies the requests, CameraConfiguration::validate(); then, unless
 *  invalid, Camera::configure() and FrameBufferAllocator::allocate() + mmap (read-only) of every
 *  buffer. `*status` says what validation did; INVALID returns TC_ERR_INVALID_ARGUMENT and applies
 *  nothing. Stream i of the configuration is index i in tc_camera_queue_request. BUSY while
 *  streaming or while buffers are lent out. */
tc_status tc_camera_configure(tc_camera *camera, tc_stream_config *streams, size_t count,
                              tc_config_status *status);

/* ---- Control lists, by name ---- */

/** A list whose names are looked up in this camera's ControlInfoMap (Camera::controls()). Destroy
 *  it before closing the camera. */
tc_controls *tc_controls_create_for_camera(tc_camera *camera);
/** A list whose names are looked up in libcamera's global table (controls::controls): for tests
 *  and for metadata-only names. */
tc_controls *tc_controls_create_global(void);
void tc_controls_destroy(tc_controls *list);
const char *tc_controls_last_error(const tc_controls *list);
/** The control named `name` in libcamera's global table (controls::controls, searched by
 *  ControlId::name()): name, type and array shape; min, max and def are NONE. UNSUPPORTED when this
 *  libcamera has no such control. `out->name` stays valid for the life of the process. */
tc_status tc_global_control_find(const char *name, tc_control_info *out);
/** Sets `name` to a copy of `value` (ControlList::set). UNSUPPORTED when the name is not in the
 *  list's table; INVALID_ARGUMENT when the element type does not match the control's, or, from 0.4,
 *  when array-ness or array length does not match the ControlId's (ControlId::isArray/size). Before
 *  0.4 the ControlId has no array-ness: the value's own is_array and count are taken as given and
 *  only the element type is checked. An INT32/INT64 value for an UINT16/UINT32 control is converted
 *  when it fits. */
tc_status tc_controls_set(tc_controls *list, const char *name, const tc_value *value);
/** Snapshots the entries and returns their number; tc_controls_at reads them (valid until the list
 *  changes or is counted again). */
size_t tc_controls_count(tc_controls *list);
tc_status tc_controls_at(tc_controls *list, size_t index, const char **name, tc_value *out);

/* ---- Streaming ---- */

typedef enum tc_event_kind { TC_EVENT_REQUEST_COMPLETED = 0, TC_EVENT_DISCONNECTED = 1 } tc_event_kind;

/** An event. For REQUEST_COMPLETED, `completion` is lent for the duration of the callback only; the
 *  shim frees it when the callback returns (buffers taken with tc_completion_buffer stay lent). */
typedef struct tc_event {
    tc_event_kind kind;
    tc_completion *completion;
} tc_event;

/** Called on libcamera's thread; must not block. */
typedef void (*tc_event_callback)(void *context, const tc_event *event);

/** Sets (or clears, with NULL) the callback. When it returns, no call of the previous callback is
 *  running or will start (callbacks run under a mutex this call also takes). */
tc_status tc_camera_set_event_callback(tc_camera *camera, tc_event_callback callback, void *context);
/** Camera::start(initial controls, may be NULL). */
tc_status tc_camera_start(tc_camera *camera, const tc_controls *initial);
/** Camera::stop(); pending requests complete (cancelled) through the callback before it returns. */
tc_status tc_camera_stop(tc_camera *camera);
/** createRequest(cookie), the list's controls copied into Request::controls(), a free buffer of
 *  each listed stream added, queueRequest(). BUSY when a stream has no free buffer. */
tc_status tc_camera_queue_request(tc_camera *camera, uint64_t cookie, const tc_controls *controls,
                                  const uint32_t *stream_indices, size_t stream_count);

/** A buffer of a completed request: a read-only mapping of its dmabuf. */
typedef struct tc_buffer_view {
    uint32_t stream_index;
    uint32_t buffer_index;  /* token for tc_buffer_release */
    const void *data;       /* plane 0, followed by the other planes when they are contiguous */
    size_t length;          /* bytes at data */
    size_t plane_count;
    uint64_t timestamp_ns;  /* FrameMetadata::timestamp */
} tc_buffer_view;

uint64_t tc_completion_cookie(const tc_completion *completion);
uint32_t tc_completion_sequence(const tc_completion *completion);
/** False when the request was cancelled (Request::RequestCancelled). */
bool tc_completion_is_complete(const tc_completion *completion);
/** The metadata ControlList, readable by name through tc_controls_* while the completion lives. */
tc_controls *tc_completion_metadata(tc_completion *completion);
/** Successfully filled buffers only (cancelled or failed ones go straight back to the pool). */
size_t tc_completion_buffer_count(const tc_completion *completion);
/** Lends buffer `index` to the caller, who must hand it back with tc_buffer_release. */
tc_status tc_completion_buffer(tc_completion *completion, size_t index, tc_buffer_view *out);
/** Returns a lent buffer to its stream's pool. Any thread; a second release is ignored. */
void tc_buffer_release(tc_camera *camera, uint32_t stream_index, uint32_t buffer_index);

#ifdef __cplusplus
}
#endif
#endif

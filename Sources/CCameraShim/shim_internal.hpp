// Internal definitions shared by the shim's C++ files. Never included from Swift.
#pragma once

#include "tripod_camera.h"

#include <libcamera/libcamera.h>

/// True when the libcamera headers being compiled against are version major.minor or newer
/// (LIBCAMERA_VERSION_* from <libcamera/version.h>, present in every release). Each use names the
/// API change it guards.
#define TC_LIBCAMERA_AT_LEAST(major, minor) \
    (LIBCAMERA_VERSION_MAJOR > (major) || (LIBCAMERA_VERSION_MAJOR == (major) && LIBCAMERA_VERSION_MINOR >= (minor)))

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tc {

/// Maps a negative errno from libcamera onto a status.
tc_status statusFromErrno(int negativeErrno);

/// Formats "call: strerror(-err)".
std::string errnoMessage(const std::string &call, int negativeErrno);

/// The shim's name for a libcamera ControlType (converted by name: libcamera renumbered the enum in
/// 0.4). NONE for a type the shim does not carry.
tc_value_type typeOf(libcamera::ControlType type);

/// A read-only view of a libcamera value (points into `value`'s storage).
tc_value viewOf(const libcamera::ControlValue &value);

/// Whether `id` is an array control and its fixed length (0 = any length), from the ControlId itself
/// (ControlId::isArray/size, 0.4 and later). Returns false, with a scalar shape, when this
/// libcamera's ControlId cannot tell (before 0.4).
bool arrayShape(const libcamera::ControlId &id, bool *isArray, size_t *fixedLength);

/// Fills name, type and array shape of `out` from `id`; min, max and def become NONE.
void describe(const libcamera::ControlId &id, tc_control_info *out);

/// Copies a C value into a libcamera value, checking it against `id`: the element type always, the
/// array shape and length where the ControlId has them (0.4+; before, the value's own shape is used).
/// Returns an empty string on success, otherwise what is wrong.
std::string makeValue(const libcamera::ControlId &id, const tc_value &in, libcamera::ControlValue *out);

/// The ControlId named `name` in `map` (a ControlInfoMap or the global ControlIdMap), or null.
const libcamera::ControlId *findByName(const libcamera::ControlInfoMap &map, const std::string &name);
const libcamera::ControlId *findByName(const libcamera::ControlIdMap &map, const std::string &name);

/// One mmap of one dmabuf (several planes may share it).
struct Mapping {
    void *address = nullptr;
    size_t length = 0;
};

/// A buffer of a configured stream with its mapping.
struct Buffer {
    libcamera::FrameBuffer *frameBuffer = nullptr;
    const void *data = nullptr; // plane 0
    size_t length = 0;          // plane 0, plus following planes if contiguous
    std::vector<Mapping> mappings;
    bool lent = false;          // held by the caller; guarded by tc_camera::poolMutex
};

/// A configured stream and its pool of buffers.
struct StreamState {
    libcamera::Stream *stream = nullptr;
    std::vector<Buffer> buffers;
    std::vector<uint32_t> free; // indices into buffers, guarded by Camera::poolMutex
};

} // namespace tc

struct tc_manager {
    std::unique_ptr<libcamera::CameraManager> manager;
    std::vector<std::shared_ptr<libcamera::Camera>> snapshot;
    std::vector<std::pair<std::string, std::string>> snapshotStrings; // id, model
    std::atomic<int> openCameras{0};
    std::string lastError;
};

struct tc_controls {
    /// Where names are looked up: this camera's ControlInfoMap, or (null) the global table.
    std::shared_ptr<libcamera::Camera> camera;
    /// The list written by tc_controls_set (never a request's metadata).
    libcamera::ControlList owned{libcamera::controls::controls};
    /// The list read: `owned`, or a completed request's metadata (const since 0.7).
    const libcamera::ControlList *list = &owned;
    bool readOnly = false;
    std::vector<std::pair<std::string, const libcamera::ControlValue *>> entries;
    std::string lastError;
};

struct tc_camera {
    tc_manager *owner = nullptr;
    std::shared_ptr<libcamera::Camera> camera;
    std::unique_ptr<libcamera::CameraConfiguration> configuration;
    std::unique_ptr<libcamera::FrameBufferAllocator> allocator;
    std::vector<tc::StreamState> streams;
    std::mutex poolMutex;  // guards StreamState::free and lentCount
    size_t lentCount = 0;
    std::mutex inflightMutex;
    std::map<libcamera::Request *, std::unique_ptr<libcamera::Request>> inflight;
    /// Completed requests, deleted later on the caller's thread (never on libcamera's).
    std::vector<std::unique_ptr<libcamera::Request>> spent;
    bool streaming = false;
    std::mutex callbackMutex;  // held while the callback runs and while it is replaced
    tc_event_callback callback = nullptr;
    void *context = nullptr;

    void emit(const tc_event &event);

    // Snapshots for indexed reads.
    std::vector<std::pair<const libcamera::ControlId *, const libcamera::ControlInfo *>> controlInfos;
    std::vector<std::pair<std::string, std::vector<tc_size>>> formats;
    std::string lastError;

    void onRequestCompleted(libcamera::Request *request);
    void onDisconnected();
    void returnToPool(uint32_t streamIndex, uint32_t bufferIndex, bool wasLent);
    void freeBuffers();
};

struct tc_completion {
    tc_camera *camera = nullptr;
    libcamera::Request *request = nullptr;
    tc_controls metadata;
    struct Filled {
        uint32_t streamIndex;
        uint32_t bufferIndex;
        uint64_t timestampNs;
        bool lent;
    };
    std::vector<Filled> filled;
};

// Per-camera queries and configuration: ControlInfoMap, StreamFormats, configure, buffers + mmap.
#include "shim_internal.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>

using namespace libcamera;

namespace {

StreamRole roleOf(tc_role role) {
    switch (role) {
    case TC_ROLE_RAW: return StreamRole::Raw;
    case TC_ROLE_STILL: return StreamRole::StillCapture;
    case TC_ROLE_VIDEO: return StreamRole::VideoRecording;
    case TC_ROLE_VIEWFINDER: return StreamRole::Viewfinder;
    }
    return StreamRole::Viewfinder;
}

void fillInfo(const ControlId *id, const ControlInfo *info, tc_control_info *out) {
    tc::describe(*id, out);
    out->min = tc::viewOf(info->min());
    out->max = tc::viewOf(info->max());
    out->def = tc::viewOf(info->def());
}

void writeBack(const StreamConfiguration &cfg, tc_stream_config *out) {
    std::string name = cfg.pixelFormat.toString();
    std::memset(out->pixel_format, 0, sizeof out->pixel_format);
    std::strncpy(out->pixel_format, name.c_str(), sizeof out->pixel_format - 1);
    out->size = tc_size{cfg.size.width, cfg.size.height};
    out->buffer_count = cfg.bufferCount;
    out->stride = cfg.stride;
    out->frame_size = cfg.frameSize;
}

/// Maps every dmabuf of `frameBuffer` read-only, once; plane 0 (and the planes contiguous with it)
/// become the buffer's data. Returns an empty string or what failed.
std::string mapBuffer(FrameBuffer *frameBuffer, tc::Buffer *out) {
    out->frameBuffer = frameBuffer;
    // A std::vector before 0.6, a Span since: only size(), [] and iteration are used.
    const auto &planes = frameBuffer->planes();
    std::map<int, size_t> lengthByFd;
    for (const FrameBuffer::Plane &plane : planes) {
        size_t end = size_t(plane.offset) + plane.length;
        lengthByFd[plane.fd.get()] = std::max(lengthByFd[plane.fd.get()], end);
    }
    std::map<int, uint8_t *> baseByFd;
    for (const auto &[fd, length] : lengthByFd) {
        void *address = mmap(nullptr, length, PROT_READ, MAP_SHARED, fd, 0);
        if (address == MAP_FAILED)
            return tc::errnoMessage("mmap dmabuf fd " + std::to_string(fd), -errno);
        out->mappings.push_back(tc::Mapping{address, length});
        baseByFd[fd] = static_cast<uint8_t *>(address);
    }
    if (planes.empty())
        return "FrameBuffer has no planes";
    out->data = baseByFd[planes[0].fd.get()] + planes[0].offset;
    out->length = planes[0].length;
    for (size_t i = 1; i < planes.size(); i++) {
        bool contiguous = planes[i].fd.get() == planes[0].fd.get() &&
                          planes[i].offset == planes[i - 1].offset + planes[i - 1].length;
        if (!contiguous)
            break;
        out->length += planes[i].length;
    }
    return "";
}

} // namespace

void tc_camera::freeBuffers() {
    std::lock_guard<std::mutex> lock(poolMutex);
    for (tc::StreamState &state : streams)
        for (tc::Buffer &buffer : state.buffers)
            for (tc::Mapping &mapping : buffer.mappings)
                munmap(mapping.address, mapping.length);
    streams.clear();
    allocator.reset();
}

extern "C" {

size_t tc_camera_control_info_count(tc_camera *camera) {
    if (!camera)
        return 0;
    camera->controlInfos.clear();
    for (const auto &entry : camera->camera->controls())
        camera->controlInfos.emplace_back(entry.first, &entry.second);
    return camera->controlInfos.size();
}

tc_status tc_camera_control_info_at(tc_camera *camera, size_t index, tc_control_info *out) {
    if (!camera || !out)
        return TC_ERR_INVALID_ARGUMENT;
    if (index >= camera->controlInfos.size()) {
        camera->lastError = "control info " + std::to_string(index) + " out of range";
        return TC_ERR_NOT_FOUND;
    }
    fillInfo(camera->controlInfos[index].first, camera->controlInfos[index].second, out);
    return TC_OK;
}

tc_status tc_camera_control_info_find(tc_camera *camera, const char *name, tc_control_info *out) {
    if (!camera || !name || !out)
        return TC_ERR_INVALID_ARGUMENT;
    tc_camera_control_info_count(camera);
    for (const auto &[id, info] : camera->controlInfos) {
        if (id->name() == name) {
            fillInfo(id, info, out);
            return TC_OK;
        }
    }
    camera->lastError = "camera " + camera->camera->id() + " has no control '" + name + "' (unsupported)";
    return TC_ERR_UNSUPPORTED;
}

tc_status tc_camera_stream_formats(tc_camera *camera, tc_role role, size_t *format_count) {
    if (!camera || !format_count)
        return TC_ERR_INVALID_ARGUMENT;
    camera->formats.clear();
    *format_count = 0;
    std::vector<StreamRole> roles{roleOf(role)};
    std::unique_ptr<CameraConfiguration> config = camera->camera->generateConfiguration(roles);
    if (!config || config->empty()) {
        camera->lastError = "Camera::generateConfiguration: camera " + camera->camera->id() +
                            " cannot produce role " + std::to_string(int(role)) + " (unsupported)";
        return TC_ERR_UNSUPPORTED;
    }
    const StreamFormats &formats = config->at(0).formats();
    for (const PixelFormat &format : formats.pixelformats()) {
        std::vector<tc_size> sizes;
        for (const Size &size : formats.sizes(format))
            sizes.push_back(tc_size{size.width, size.height});
        camera->formats.emplace_back(format.toString(), std::move(sizes));
    }
    *format_count = camera->formats.size();
    return TC_OK;
}

tc_status tc_camera_stream_format_at(tc_camera *camera, size_t index, const char **pixel_format,
                                     const tc_size **sizes, size_t *size_count) {
    if (!camera || !pixel_format || !sizes || !size_count)
        return TC_ERR_INVALID_ARGUMENT;
    if (index >= camera->formats.size()) {
        camera->lastError = "stream format " + std::to_string(index) + " out of range";
        return TC_ERR_NOT_FOUND;
    }
    *pixel_format = camera->formats[index].first.c_str();
    *sizes = camera->formats[index].second.data();
    *size_count = camera->formats[index].second.size();
    return TC_OK;
}

tc_status tc_camera_configure(tc_camera *camera, tc_stream_config *streams, size_t count,
                              tc_config_status *status) {
    if (!camera || !streams || count == 0 || !status)
        return TC_ERR_INVALID_ARGUMENT;
    *status = TC_CONFIG_INVALID;
    if (camera->streaming) {
        camera->lastError = "Camera::configure: camera " + camera->camera->id() + " is streaming (stop it first)";
        return TC_ERR_STATE;
    }
    {
        std::lock_guard<std::mutex> lock(camera->poolMutex);
        if (camera->lentCount > 0) {
            camera->lastError = "Camera::configure: " + std::to_string(camera->lentCount) +
                                " frame buffers are still held by the caller";
            return TC_ERR_BUSY;
        }
    }
    // StreamRoles (a vector) before 0.1; a Span of roles since, which a vector converts to.
    std::vector<StreamRole> roles;
    for (size_t i = 0; i < count; i++)
        roles.push_back(roleOf(streams[i].role));
    std::unique_ptr<CameraConfiguration> config = camera->camera->generateConfiguration(roles);
    if (!config || config->size() != count) {
        camera->lastError = "Camera::generateConfiguration: camera " + camera->camera->id() +
                            " cannot produce these " + std::to_string(count) + " roles together";
        return TC_ERR_UNSUPPORTED;
    }
    for (size_t i = 0; i < count; i++) {
        StreamConfiguration &cfg = config->at(i);
        if (streams[i].pixel_format[0] != '\0') {
            PixelFormat format = PixelFormat::fromString(streams[i].pixel_format);
            if (!format.isValid()) {
                camera->lastError = std::string("unknown pixel format '") + streams[i].pixel_format + "'";
                return TC_ERR_INVALID_ARGUMENT;
            }
            cfg.pixelFormat = format;
        }
        if (streams[i].size.width > 0 && streams[i].size.height > 0)
            cfg.size = Size(streams[i].size.width, streams[i].size.height);
        if (streams[i].buffer_count > 0)
            cfg.bufferCount = streams[i].buffer_count;
    }
    CameraConfiguration::Status validation = config->validate();
    for (size_t i = 0; i < count; i++)
        writeBack(config->at(i), &streams[i]);
    if (validation == CameraConfiguration::Invalid) {
        camera->lastError = "CameraConfiguration::validate: invalid for camera " + camera->camera->id();
        return TC_ERR_INVALID_ARGUMENT;
    }
    *status = validation == CameraConfiguration::Adjusted ? TC_CONFIG_ADJUSTED : TC_CONFIG_VALID;

    camera->freeBuffers();
    camera->configuration.reset();
    int ret = camera->camera->configure(config.get());
    if (ret < 0) {
        camera->lastError = tc::errnoMessage("Camera::configure(" + camera->camera->id() + ")", ret);
        return tc::statusFromErrno(ret);
    }
    auto allocator = std::make_unique<FrameBufferAllocator>(camera->camera);
    std::vector<tc::StreamState> states;
    tc_status result = TC_OK;
    for (size_t i = 0; i < count && result == TC_OK; i++) {
        writeBack(config->at(i), &streams[i]);
        tc::StreamState state;
        state.stream = config->at(i).stream();
        ret = allocator->allocate(state.stream);
        if (ret < 0) {
            camera->lastError = tc::errnoMessage("FrameBufferAllocator::allocate(stream " + std::to_string(i) + ")", ret);
            result = tc::statusFromErrno(ret);
            break;
        }
        const auto &buffers = allocator->buffers(state.stream);
        for (size_t b = 0; b < buffers.size(); b++) {
            state.buffers.emplace_back();
            std::string problem = mapBuffer(buffers[b].get(), &state.buffers.back());
            if (!problem.empty()) {
                camera->lastError = problem;
                result = TC_ERR_IO;
                break;
            }
            state.free.push_back(uint32_t(b));
        }
        states.push_back(std::move(state));
    }
    {
        std::lock_guard<std::mutex> lock(camera->poolMutex);
        camera->streams = std::move(states);
        camera->allocator = std::move(allocator);
    }
    camera->configuration = std::move(config);
    if (result != TC_OK)
        camera->freeBuffers();
    return result;
}

} // extern "C"

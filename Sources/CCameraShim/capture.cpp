// Streaming: start/stop, requests with their own controls, completions, lent buffers, events.
#include "shim_internal.hpp"

#include <cstddef>
#include <iterator>

using namespace libcamera;

namespace {
/// Completed requests kept alive after their completion: a pipeline handler may still read a
/// request on libcamera's thread just after completing it (vimc's bufferReady() calls
/// request->sequence() after completeRequest(), in 0.0.3), so deleting it at the next queueRequest
/// on the caller's thread was a use-after-free (seen on the virtual board as a crash in
/// Request::sequence()). By the time this many later requests have completed, it is long done.
constexpr size_t keptSpentRequests = 8;

/// Deletes completed requests but the newest `keep`; called on the caller's thread only. After
/// Camera::stop() nothing is running, and everything can go.
void dropSpent(tc_camera *camera, size_t keep = keptSpentRequests) {
    std::vector<std::unique_ptr<Request>> old;
    {
        std::lock_guard<std::mutex> lock(camera->inflightMutex);
        if (camera->spent.size() <= keep)
            return;
        auto end = camera->spent.end() - static_cast<std::ptrdiff_t>(keep);
        old.assign(std::make_move_iterator(camera->spent.begin()), std::make_move_iterator(end));
        camera->spent.erase(camera->spent.begin(), end);
    }
}
} // namespace

void tc_camera::returnToPool(uint32_t streamIndex, uint32_t bufferIndex, bool wasLent) {
    std::lock_guard<std::mutex> lock(poolMutex);
    if (streamIndex >= streams.size() || bufferIndex >= streams[streamIndex].buffers.size())
        return;
    tc::Buffer &buffer = streams[streamIndex].buffers[bufferIndex];
    if (wasLent != buffer.lent)
        return;  // a second release of the same buffer, or a lent buffer the shim must not reuse yet
    buffer.lent = false;
    streams[streamIndex].free.push_back(bufferIndex);
    if (wasLent)
        lentCount--;
}

// Runs on libcamera's thread.
void tc_camera::onRequestCompleted(Request *request) {
    std::unique_ptr<Request> owned;
    {
        std::lock_guard<std::mutex> lock(inflightMutex);
        auto it = inflight.find(request);
        if (it == inflight.end())
            return;
        owned = std::move(it->second);
        inflight.erase(it);
    }
    tc_completion completion;
    completion.camera = this;
    completion.request = request;
    completion.metadata.list = &request->metadata();
    completion.metadata.readOnly = true;
    bool complete = request->status() == Request::RequestComplete;
    for (const auto &[stream, frameBuffer] : request->buffers()) {
        uint32_t streamIndex = 0;
        while (streamIndex < streams.size() && streams[streamIndex].stream != stream)
            streamIndex++;
        // Found by pointer, not FrameBuffer::cookie(): pipeline handlers may use cookies themselves.
        uint32_t bufferIndex = 0;
        if (streamIndex < streams.size()) {
            const std::vector<tc::Buffer> &buffers = streams[streamIndex].buffers;
            while (bufferIndex < buffers.size() && buffers[bufferIndex].frameBuffer != frameBuffer)
                bufferIndex++;
        }
        if (complete && frameBuffer->metadata().status == FrameMetadata::FrameSuccess)
            completion.filled.push_back({streamIndex, bufferIndex, frameBuffer->metadata().timestamp, false});
        else
            returnToPool(streamIndex, bufferIndex, false);
    }
    emit(tc_event{TC_EVENT_REQUEST_COMPLETED, &completion});
    for (const auto &filled : completion.filled)
        if (!filled.lent)
            returnToPool(filled.streamIndex, filled.bufferIndex, false);
    std::lock_guard<std::mutex> lock(inflightMutex);
    spent.push_back(std::move(owned));
}

// Runs on libcamera's thread.
void tc_camera::onDisconnected() { emit(tc_event{TC_EVENT_DISCONNECTED, nullptr}); }

// Runs on libcamera's thread.
void tc_camera::emit(const tc_event &event) {
    std::lock_guard<std::mutex> lock(callbackMutex);
    if (callback)
        callback(context, &event);
}

extern "C" {

tc_status tc_camera_set_event_callback(tc_camera *camera, tc_event_callback callback, void *context) {
    if (!camera)
        return TC_ERR_INVALID_ARGUMENT;
    std::lock_guard<std::mutex> lock(camera->callbackMutex);
    camera->callback = callback;
    camera->context = context;
    return TC_OK;
}

tc_status tc_camera_start(tc_camera *camera, const tc_controls *initial) {
    if (!camera)
        return TC_ERR_INVALID_ARGUMENT;
    if (!camera->configuration) {
        camera->lastError = "Camera::start(" + camera->camera->id() + "): not configured";
        return TC_ERR_STATE;
    }
    int ret = camera->camera->start(initial ? initial->list : nullptr);
    if (ret < 0) {
        camera->lastError = tc::errnoMessage("Camera::start(" + camera->camera->id() + ")", ret);
        return tc::statusFromErrno(ret);
    }
    camera->streaming = true;
    return TC_OK;
}

tc_status tc_camera_stop(tc_camera *camera) {
    if (!camera)
        return TC_ERR_INVALID_ARGUMENT;
    if (!camera->streaming)
        return TC_OK;
    int ret = camera->camera->stop();
    camera->streaming = false;
    {
        // Anything libcamera did not complete will never complete: give its buffers back.
        std::lock_guard<std::mutex> lock(camera->inflightMutex);
        for (auto &[request, owned] : camera->inflight)
            camera->spent.push_back(std::move(owned));
        camera->inflight.clear();
    }
    dropSpent(camera, 0);
    if (ret < 0) {
        camera->lastError = tc::errnoMessage("Camera::stop(" + camera->camera->id() + ")", ret);
        return tc::statusFromErrno(ret);
    }
    return TC_OK;
}

tc_status tc_camera_queue_request(tc_camera *camera, uint64_t cookie, const tc_controls *controls,
                                  const uint32_t *stream_indices, size_t stream_count) {
    if (!camera || (stream_count > 0 && !stream_indices))
        return TC_ERR_INVALID_ARGUMENT;
    dropSpent(camera);
    if (!camera->streaming) {
        camera->lastError = "Camera::queueRequest(" + camera->camera->id() + "): not started";
        return TC_ERR_STATE;
    }
    std::unique_ptr<Request> request = camera->camera->createRequest(cookie);
    if (!request) {
        camera->lastError = "Camera::createRequest(" + camera->camera->id() + ") failed";
        return TC_ERR_OTHER;
    }
    if (controls)
        for (const auto &[id, value] : *controls->list)
            request->controls().set(id, value);

    std::vector<std::pair<uint32_t, uint32_t>> taken;
    {
        std::lock_guard<std::mutex> lock(camera->poolMutex);
        for (size_t i = 0; i < stream_count; i++) {
            uint32_t index = stream_indices[i];
            if (index >= camera->streams.size() || camera->streams[index].free.empty())
                break;
            taken.emplace_back(index, camera->streams[index].free.back());
            camera->streams[index].free.pop_back();
        }
    }
    if (taken.size() != stream_count) {
        uint32_t index = stream_indices[taken.size()];
        for (const auto &[s, b] : taken)
            camera->returnToPool(s, b, false);
        bool exists = index < camera->streams.size();
        camera->lastError = exists ? "queue request: stream " + std::to_string(index) + " has no free buffer"
                                   : "queue request: no stream " + std::to_string(index);
        return exists ? TC_ERR_BUSY : TC_ERR_INVALID_ARGUMENT;
    }
    for (const auto &[s, b] : taken) {
        int ret = request->addBuffer(camera->streams[s].stream, camera->streams[s].buffers[b].frameBuffer);
        if (ret < 0) {
            for (const auto &[s2, b2] : taken)
                camera->returnToPool(s2, b2, false);
            camera->lastError = tc::errnoMessage("Request::addBuffer(stream " + std::to_string(s) + ")", ret);
            return tc::statusFromErrno(ret);
        }
    }
    Request *raw = request.get();
    {
        std::lock_guard<std::mutex> lock(camera->inflightMutex);
        camera->inflight[raw] = std::move(request);
    }
    int ret = camera->camera->queueRequest(raw);
    if (ret < 0) {
        std::lock_guard<std::mutex> lock(camera->inflightMutex);
        camera->inflight.erase(raw);
        for (const auto &[s, b] : taken)
            camera->returnToPool(s, b, false);
        camera->lastError = tc::errnoMessage("Camera::queueRequest(" + camera->camera->id() + ")", ret);
        return tc::statusFromErrno(ret);
    }
    return TC_OK;
}

uint64_t tc_completion_cookie(const tc_completion *completion) { return completion->request->cookie(); }

uint32_t tc_completion_sequence(const tc_completion *completion) { return completion->request->sequence(); }

bool tc_completion_is_complete(const tc_completion *completion) {
    return completion->request->status() == Request::RequestComplete;
}

tc_controls *tc_completion_metadata(tc_completion *completion) { return &completion->metadata; }

size_t tc_completion_buffer_count(const tc_completion *completion) { return completion->filled.size(); }

tc_status tc_completion_buffer(tc_completion *completion, size_t index, tc_buffer_view *out) {
    if (!completion || !out || index >= completion->filled.size())
        return TC_ERR_INVALID_ARGUMENT;
    tc_completion::Filled &filled = completion->filled[index];
    tc_camera *camera = completion->camera;
    std::lock_guard<std::mutex> lock(camera->poolMutex);
    if (filled.streamIndex >= camera->streams.size() ||
        filled.bufferIndex >= camera->streams[filled.streamIndex].buffers.size())
        return TC_ERR_NOT_FOUND;
    tc::Buffer &buffer = camera->streams[filled.streamIndex].buffers[filled.bufferIndex];
    if (!filled.lent) {
        filled.lent = true;
        buffer.lent = true;
        camera->lentCount++;
    }
    *out = tc_buffer_view{filled.streamIndex, filled.bufferIndex, buffer.data, buffer.length,
                          buffer.frameBuffer->planes().size(), filled.timestampNs};
    return TC_OK;
}

void tc_buffer_release(tc_camera *camera, uint32_t stream_index, uint32_t buffer_index) {
    if (camera)
        camera->returnToPool(stream_index, buffer_index, true);
}

} // extern "C"

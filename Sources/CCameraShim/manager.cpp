// CameraManager lifecycle, enumeration, and opening (acquiring) cameras.
#include "shim_internal.hpp"

using namespace libcamera;

namespace {
/// libcamera aborts when a second CameraManager is constructed; this guards against that.
std::mutex managerGuard;
bool managerExists = false;

tc_location locationOf(const ControlList &properties) {
    std::optional<int32_t> location = properties.get(properties::Location);
    if (!location)
        return TC_LOCATION_UNKNOWN;
    switch (*location) {
    case properties::CameraLocationFront: return TC_LOCATION_FRONT;
    case properties::CameraLocationBack: return TC_LOCATION_BACK;
    case properties::CameraLocationExternal: return TC_LOCATION_EXTERNAL;
    default: return TC_LOCATION_UNKNOWN;
    }
}

tc_size sizeOf(const std::optional<Size> &size) {
    return size ? tc_size{size->width, size->height} : tc_size{0, 0};
}
} // namespace

extern "C" {

tc_manager *tc_manager_create(void) { return new (std::nothrow) tc_manager; }

void tc_manager_destroy(tc_manager *manager) {
    if (!manager)
        return;
    if (tc_manager_stop(manager) == TC_ERR_BUSY)
        return;  // cameras still open: leaking beats destroying the CameraManager under them
    delete manager;
}

tc_status tc_manager_start(tc_manager *manager) {
    if (!manager)
        return TC_ERR_INVALID_ARGUMENT;
    if (manager->manager)
        return TC_OK;
    std::lock_guard<std::mutex> lock(managerGuard);
    if (managerExists) {
        manager->lastError = "CameraManager::start: another camera manager is running in this process";
        return TC_ERR_BUSY;
    }
    auto cm = std::make_unique<CameraManager>();
    int ret = cm->start();
    if (ret < 0) {
        manager->lastError = tc::errnoMessage("CameraManager::start", ret);
        return tc::statusFromErrno(ret);
    }
    manager->manager = std::move(cm);
    managerExists = true;
    return TC_OK;
}

tc_status tc_manager_stop(tc_manager *manager) {
    if (!manager)
        return TC_ERR_INVALID_ARGUMENT;
    if (!manager->manager)
        return TC_OK;
    if (manager->openCameras.load() > 0) {
        manager->lastError = "CameraManager::stop: " + std::to_string(manager->openCameras.load()) +
                             " camera(s) still open";
        return TC_ERR_BUSY;
    }
    manager->snapshot.clear();
    manager->snapshotStrings.clear();
    manager->manager->stop();
    std::lock_guard<std::mutex> lock(managerGuard);
    manager->manager.reset();
    managerExists = false;
    return TC_OK;
}

const char *tc_manager_last_error(const tc_manager *manager) { return manager ? manager->lastError.c_str() : ""; }

size_t tc_manager_camera_count(tc_manager *manager) {
    if (!manager || !manager->manager)
        return 0;
    manager->snapshot = manager->manager->cameras();
    manager->snapshotStrings.clear();
    for (const auto &camera : manager->snapshot) {
        // optional<std::string> before 0.6, optional<std::string_view> since.
        auto model = camera->properties().get(properties::Model);
        manager->snapshotStrings.emplace_back(camera->id(), model ? std::string(*model) : std::string());
    }
    return manager->snapshot.size();
}

tc_status tc_manager_camera_info(tc_manager *manager, size_t index, tc_camera_info *out) {
    if (!manager || !out)
        return TC_ERR_INVALID_ARGUMENT;
    if (index >= manager->snapshot.size()) {
        manager->lastError = "camera " + std::to_string(index) + " out of range (" +
                             std::to_string(manager->snapshot.size()) + " cameras)";
        return TC_ERR_NOT_FOUND;
    }
    const ControlList &properties = manager->snapshot[index]->properties();
    out->id = manager->snapshotStrings[index].first.c_str();
    out->model = manager->snapshotStrings[index].second.c_str();
    out->location = locationOf(properties);
    out->pixel_array_size = sizeOf(properties.get(properties::PixelArraySize));
    out->unit_cell_size_nm = sizeOf(properties.get(properties::UnitCellSize));
    return TC_OK;
}

tc_status tc_camera_open(tc_manager *manager, const char *id, tc_camera **out) {
    if (!manager || !id || !out)
        return TC_ERR_INVALID_ARGUMENT;
    if (!manager->manager) {
        manager->lastError = std::string("open camera '") + id + "': camera manager not started";
        return TC_ERR_STATE;
    }
    std::shared_ptr<Camera> camera = manager->manager->get(id);
    if (!camera) {
        manager->lastError = std::string("CameraManager::get('") + id + "'): no such camera";
        return TC_ERR_NOT_FOUND;
    }
    int ret = camera->acquire();
    if (ret < 0) {
        manager->lastError = tc::errnoMessage(std::string("Camera::acquire('") + id + "')", ret);
        return tc::statusFromErrno(ret);
    }
    auto *handle = new (std::nothrow) tc_camera;
    if (!handle) {
        camera->release();
        manager->lastError = "open camera: out of memory";
        return TC_ERR_NO_MEMORY;
    }
    handle->owner = manager;
    handle->camera = camera;
    camera->requestCompleted.connect(handle, &tc_camera::onRequestCompleted);
    camera->disconnected.connect(handle, &tc_camera::onDisconnected);
    manager->openCameras.fetch_add(1);
    *out = handle;
    return TC_OK;
}

void tc_camera_close(tc_camera *camera) {
    if (!camera)
        return;
    if (camera->streaming)
        tc_camera_stop(camera);
    camera->camera->requestCompleted.disconnect(camera);
    camera->camera->disconnected.disconnect(camera);
    camera->spent.clear();     // requests go before the buffers they name
    camera->inflight.clear();
    camera->freeBuffers();
    camera->configuration.reset();
    camera->camera->release();
    camera->owner->openCameras.fetch_sub(1);
    delete camera;
}

const char *tc_camera_last_error(const tc_camera *camera) { return camera ? camera->lastError.c_str() : ""; }

} // extern "C"

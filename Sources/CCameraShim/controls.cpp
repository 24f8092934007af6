// Control values and lists by name: tc_value <-> libcamera::ControlValue, tc_controls_*.
#include "shim_internal.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <type_traits>

using namespace libcamera;

static_assert(sizeof(tc_rect) == sizeof(Rectangle) && offsetof(tc_rect, height) == offsetof(Rectangle, height),
              "tc_rect must match libcamera::Rectangle");
static_assert(sizeof(tc_size) == sizeof(Size) && offsetof(tc_size, height) == offsetof(Size, height),
              "tc_size must match libcamera::Size");
static_assert(sizeof(bool) == 1, "C bool and C++ bool are one byte");
static_assert(int(TC_VALUE_SIZE) == int(ControlTypeSize) && int(TC_VALUE_RECTANGLE) == int(ControlTypeRectangle) &&
              int(TC_VALUE_FLOAT) == int(ControlTypeFloat) && int(TC_VALUE_BOOL) == int(ControlTypeBool),
              "tc_value_type mirrors libcamera::ControlType");

namespace {

/// ControlId in 0.0.3 does not say whether a control is an array; these are the array controls of
/// 0.0.3's control_ids.h with their fixed length (0 = any length). Everything else is a scalar.
int expectedArrayLength(const ControlId &id) {
    static const std::map<std::string, int> lengths = {
        {"ColourGains", 2}, {"SensorBlackLevels", 4}, {"ColourCorrectionMatrix", 9},
        {"FrameDurationLimits", 2}, {"AfWindows", 0},
    };
    auto it = lengths.find(id.name());
    return it == lengths.end() ? -1 : it->second;
}

const char *typeName(int type) {
    static const char *names[] = {"none", "bool", "byte", "int32", "int64", "float", "string", "rectangle", "size"};
    return type >= 0 && type <= int(TC_VALUE_SIZE) ? names[type] : "unknown";
}

template <typename T>
ControlValue build(const void *data, size_t count, bool array) {
    const T *elements = static_cast<const T *>(data);
    if (!array)
        return ControlValue(elements[0]);
    return ControlValue(Span<const T>(elements, count));
}

std::string nameOf(const ControlList &list, unsigned int id) {
    if (const ControlIdMap *map = list.idMap()) {
        auto it = map->find(id);
        if (it != map->end())
            return it->second->name();
    }
    char hex[16];
    std::snprintf(hex, sizeof hex, "0x%08x", id);
    return hex;
}

} // namespace

namespace tc {

tc_value viewOf(const ControlValue &value) {
    Span<const uint8_t> bytes = value.data();
    return tc_value{static_cast<tc_value_type>(value.type()), value.isArray(), value.numElements(), bytes.data()};
}

std::string makeValue(const ControlId &id, const tc_value &in, ControlValue *out) {
    if (int(in.type) != int(id.type()))
        return std::string(id.name()) + " takes " + typeName(id.type()) + ", not " + typeName(in.type);
    if (in.count > 0 && in.data == nullptr)
        return std::string(id.name()) + ": value has no data";
    if (in.type == TC_VALUE_STRING) {
        *out = ControlValue(std::string(static_cast<const char *>(in.data), in.count));
        return "";
    }
    int expected = expectedArrayLength(id);
    bool array = expected >= 0;
    if (!array && (in.is_array || in.count != 1))
        return std::string(id.name()) + " takes a single " + typeName(id.type()) + ", not " +
               std::to_string(in.count) + " values";
    if (array && expected > 0 && in.count != size_t(expected))
        return std::string(id.name()) + " takes " + std::to_string(expected) + " values, not " +
               std::to_string(in.count);
    switch (in.type) {
    case TC_VALUE_BOOL: *out = build<bool>(in.data, in.count, array); break;
    case TC_VALUE_BYTE: *out = build<uint8_t>(in.data, in.count, array); break;
    case TC_VALUE_INT32: *out = build<int32_t>(in.data, in.count, array); break;
    case TC_VALUE_INT64: *out = build<int64_t>(in.data, in.count, array); break;
    case TC_VALUE_FLOAT: *out = build<float>(in.data, in.count, array); break;
    case TC_VALUE_RECTANGLE: *out = build<Rectangle>(in.data, in.count, array); break;
    case TC_VALUE_SIZE: *out = build<Size>(in.data, in.count, array); break;
    default: return std::string(id.name()) + ": cannot set a value of type " + typeName(in.type);
    }
    return "";
}

const ControlId *findByName(const ControlInfoMap &map, const std::string &name) {
    for (const auto &entry : map)
        if (entry.first->name() == name)
            return entry.first;
    return nullptr;
}

const ControlId *findByName(const ControlIdMap &map, const std::string &name) {
    for (const auto &entry : map)
        if (entry.second->name() == name)
            return entry.second;
    return nullptr;
}

} // namespace tc

extern "C" {

tc_controls *tc_controls_create_for_camera(tc_camera *camera) {
    if (!camera)
        return nullptr;
    auto *list = new (std::nothrow) tc_controls;
    if (list)
        list->camera = camera->camera;
    return list;
}

tc_controls *tc_controls_create_global(void) { return new (std::nothrow) tc_controls; }

void tc_controls_destroy(tc_controls *list) { delete list; }

const char *tc_controls_last_error(const tc_controls *list) { return list ? list->lastError.c_str() : ""; }

tc_status tc_controls_set(tc_controls *list, const char *name, const tc_value *value) {
    if (!list || !name || !value)
        return TC_ERR_INVALID_ARGUMENT;
    if (list->readOnly) {
        list->lastError = std::string("set ") + name + ": metadata is read-only";
        return TC_ERR_STATE;
    }
    const ControlId *id = list->camera ? tc::findByName(list->camera->controls(), name)
                                       : tc::findByName(controls::controls, name);
    if (!id) {
        list->lastError = list->camera
            ? "camera " + list->camera->id() + " has no control '" + name + "' (unsupported)"
            : std::string("libcamera ") + tc_libcamera_version() + " has no control '" + name + "' (unsupported)";
        return TC_ERR_UNSUPPORTED;
    }
    ControlValue converted;
    std::string problem = tc::makeValue(*id, *value, &converted);
    if (!problem.empty()) {
        list->lastError = problem;
        return TC_ERR_INVALID_ARGUMENT;
    }
    list->list->set(id->id(), converted);
    list->entries.clear();
    return TC_OK;
}

size_t tc_controls_count(tc_controls *list) {
    if (!list)
        return 0;
    list->entries.clear();
    for (const auto &entry : *list->list)
        list->entries.emplace_back(nameOf(*list->list, entry.first), &entry.second);
    return list->entries.size();
}

tc_status tc_controls_at(tc_controls *list, size_t index, const char **name, tc_value *out) {
    if (!list || !name || !out)
        return TC_ERR_INVALID_ARGUMENT;
    if (index >= list->entries.size()) {
        list->lastError = "entry " + std::to_string(index) + " out of range (call tc_controls_count first)";
        return TC_ERR_NOT_FOUND;
    }
    *name = list->entries[index].first.c_str();
    *out = tc::viewOf(*list->entries[index].second);
    return TC_OK;
}

} // extern "C"

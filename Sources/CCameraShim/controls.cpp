// Control values and lists by name: tc_value <-> libcamera::ControlValue, tc_controls_*.
#include "shim_internal.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <type_traits>

using namespace libcamera;

static_assert(sizeof(tc_rect) == sizeof(Rectangle) && offsetof(tc_rect, height) == offsetof(Rectangle, height),
              "tc_rect must match libcamera::Rectangle");
static_assert(sizeof(tc_size) == sizeof(Size) && offsetof(tc_size, height) == offsetof(Size, height),
              "tc_size must match libcamera::Size");
#if TC_LIBCAMERA_AT_LEAST(0, 4)
static_assert(sizeof(tc_point) == sizeof(Point) && offsetof(tc_point, y) == offsetof(Point, y),
              "tc_point must match libcamera::Point");
#endif
static_assert(sizeof(bool) == 1, "C bool and C++ bool are one byte");

namespace {

const char *typeName(tc_value_type type) {
    switch (type) {
    case TC_VALUE_NONE: return "none";
    case TC_VALUE_BOOL: return "bool";
    case TC_VALUE_BYTE: return "byte";
    case TC_VALUE_INT32: return "int32";
    case TC_VALUE_INT64: return "int64";
    case TC_VALUE_FLOAT: return "float";
    case TC_VALUE_STRING: return "string";
    case TC_VALUE_RECTANGLE: return "rectangle";
    case TC_VALUE_SIZE: return "size";
    case TC_VALUE_UINT16: return "uint16";
    case TC_VALUE_UINT32: return "uint32";
    case TC_VALUE_POINT: return "point";
    }
    return "unknown";
}

template <typename T>
ControlValue build(const void *data, size_t count, bool array) {
    const T *elements = static_cast<const T *>(data);
    if (!array)
        return ControlValue(elements[0]);
    return ControlValue(Span<const T>(elements, count));
}

/// Builds an unsigned value of `Target` from signed `Source` elements; false when one does not fit.
template <typename Target, typename Source>
bool narrow(const void *data, size_t count, bool array, ControlValue *out) {
    const Source *elements = static_cast<const Source *>(data);
    std::vector<Target> converted;
    for (size_t i = 0; i < count; i++) {
        if (elements[i] < 0 || uint64_t(elements[i]) > uint64_t(std::numeric_limits<Target>::max()))
            return false;
        converted.push_back(Target(elements[i]));
    }
    *out = build<Target>(converted.data(), converted.size(), array);
    return true;
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

tc_value_type typeOf(ControlType type) {
    switch (type) {
    case ControlTypeNone: return TC_VALUE_NONE;
    case ControlTypeBool: return TC_VALUE_BOOL;
    case ControlTypeByte: return TC_VALUE_BYTE;
    case ControlTypeInteger32: return TC_VALUE_INT32;
    case ControlTypeInteger64: return TC_VALUE_INT64;
    case ControlTypeFloat: return TC_VALUE_FLOAT;
    case ControlTypeString: return TC_VALUE_STRING;
    case ControlTypeRectangle: return TC_VALUE_RECTANGLE;
    case ControlTypeSize: return TC_VALUE_SIZE;
#if TC_LIBCAMERA_AT_LEAST(0, 4)
    case ControlTypeUnsigned16: return TC_VALUE_UINT16;
    case ControlTypeUnsigned32: return TC_VALUE_UINT32;
    case ControlTypePoint: return TC_VALUE_POINT;
#endif
    }
    return TC_VALUE_NONE;
}

tc_value viewOf(const ControlValue &value) {
    Span<const uint8_t> bytes = value.data();
    return tc_value{typeOf(value.type()), value.isArray(), value.numElements(), bytes.data()};
}

bool arrayShape(const ControlId &id, bool *isArray, size_t *fixedLength) {
#if TC_LIBCAMERA_AT_LEAST(0, 4)
    *isArray = id.isArray();
    *fixedLength = id.isArray() && id.size() != libcamera::dynamic_extent ? id.size() : 0;
    return true;
#else
    // ControlId has no array-ness before 0.4 (ControlId::isArray/size came with it): nothing to say.
    (void)id;
    *isArray = false;
    *fixedLength = 0;
    return false;
#endif
}

void describe(const ControlId &id, tc_control_info *out) {
    out->name = id.name().c_str();
    out->type = typeOf(id.type());
    bool isArray = false;
    size_t fixedLength = 0;
    out->array_shape_known = arrayShape(id, &isArray, &fixedLength);
    out->is_array = isArray;
    out->array_length = fixedLength;
    out->min = out->max = out->def = tc_value{TC_VALUE_NONE, false, 0, nullptr};
}

std::string makeValue(const ControlId &id, const tc_value &in, ControlValue *out) {
    const tc_value_type type = typeOf(id.type());
    const bool widenedToSigned = (type == TC_VALUE_UINT16 || type == TC_VALUE_UINT32) &&
                                 (in.type == TC_VALUE_INT32 || in.type == TC_VALUE_INT64);
    if (in.type != type && !widenedToSigned)
        return std::string(id.name()) + " takes " + typeName(type) + ", not " + typeName(in.type);
    if (in.count > 0 && in.data == nullptr)
        return std::string(id.name()) + ": value has no data";
    if (in.type == TC_VALUE_STRING) {
        const char *text = static_cast<const char *>(in.data);
#if TC_LIBCAMERA_AT_LEAST(0, 6)
        // String controls hold a std::string_view since 0.6 (ControlValue copies the characters).
        *out = ControlValue(std::string_view(text, in.count));
#else
        *out = ControlValue(std::string(text, in.count));
#endif
        return "";
    }
    bool array = false;
    size_t expected = 0;
    if (!arrayShape(id, &array, &expected))
        array = in.is_array;  // before 0.4 only the element type is checked; the shape is the caller's
    if (!array && (in.is_array || in.count != 1))
        return std::string(id.name()) + " takes a single " + typeName(type) + ", not " +
               std::to_string(in.count) + " values";
    if (array && expected > 0 && in.count != expected)
        return std::string(id.name()) + " takes " + std::to_string(expected) + " values, not " +
               std::to_string(in.count);
    if (widenedToSigned) {
        bool fits = false;
#if TC_LIBCAMERA_AT_LEAST(0, 4)
        if (type == TC_VALUE_UINT16)
            fits = in.type == TC_VALUE_INT32 ? narrow<uint16_t, int32_t>(in.data, in.count, array, out)
                                             : narrow<uint16_t, int64_t>(in.data, in.count, array, out);
        else
            fits = in.type == TC_VALUE_INT32 ? narrow<uint32_t, int32_t>(in.data, in.count, array, out)
                                             : narrow<uint32_t, int64_t>(in.data, in.count, array, out);
#endif
        return fits ? "" : std::string(id.name()) + ": value out of range for " + typeName(type);
    }
    switch (in.type) {
    case TC_VALUE_BOOL: *out = build<bool>(in.data, in.count, array); break;
    case TC_VALUE_BYTE: *out = build<uint8_t>(in.data, in.count, array); break;
    case TC_VALUE_INT32: *out = build<int32_t>(in.data, in.count, array); break;
    case TC_VALUE_INT64: *out = build<int64_t>(in.data, in.count, array); break;
    case TC_VALUE_FLOAT: *out = build<float>(in.data, in.count, array); break;
    case TC_VALUE_RECTANGLE: *out = build<Rectangle>(in.data, in.count, array); break;
    case TC_VALUE_SIZE: *out = build<Size>(in.data, in.count, array); break;
#if TC_LIBCAMERA_AT_LEAST(0, 4)
    case TC_VALUE_UINT16: *out = build<uint16_t>(in.data, in.count, array); break;
    case TC_VALUE_UINT32: *out = build<uint32_t>(in.data, in.count, array); break;
    case TC_VALUE_POINT: *out = build<Point>(in.data, in.count, array); break;
#endif
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

tc_status tc_global_control_find(const char *name, tc_control_info *out) {
    if (!name || !out)
        return TC_ERR_INVALID_ARGUMENT;
    const ControlId *id = tc::findByName(controls::controls, name);
    if (!id)
        return TC_ERR_UNSUPPORTED;
    tc::describe(*id, out);
    return TC_OK;
}

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
    list->owned.set(id->id(), converted);
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

import CCameraShim
import Hardware

/// Converts between `ControlValue` and the shim's `tc_value`, and fills and reads `tc_controls`
/// lists by control name.
enum LibcameraControls {
    /// Sets every entry of `controls` on the shim list (`tc_controls_set`), in name order so errors
    /// are reproducible. Throws `.unsupported` for a name the list's table lacks (the camera's
    /// ControlInfoMap, or libcamera's global table) and `.invalidArgument` for a wrong type.
    static func fill(_ list: OpaquePointer, with controls: ControlList, context: String) throws {
        for name in controls.keys.sorted() {
            guard let value = controls[name] else { continue }
            let status = try withShimValue(value, name: name) { tc_controls_set(list, name, $0) }
            try checkShim(status, "\(context): set \(name) = \(value)") {
                String(cString: tc_controls_last_error(list))
            }
        }
    }

    /// Every entry of a shim list (`tc_controls_count` + `tc_controls_at`) by name. Entries with
    /// no `ControlValue` equivalent (bool arrays, several rectangles) are left out.
    static func read(_ list: OpaquePointer) -> ControlList {
        var result: ControlList = [:]
        let count = tc_controls_count(list)
        for index in 0..<count {
            var name: UnsafePointer<CChar>?
            var value = tc_value()
            guard tc_controls_at(list, index, &name, &value) == TC_OK, let name,
                  let converted = controlValue(value) else { continue }
            result[String(cString: name)] = converted
        }
        return result
    }

    /// Builds a libcamera ControlList from `controls` by name using libcamera's global control table
    /// (`controls::controls`) and reads it back. For tests and diagnostics; needs no camera.
    static func roundTripThroughGlobalTable(_ controls: ControlList) throws -> ControlList {
        guard let list = tc_controls_create_global() else {
            throw HardwareError(.other, "libcamera: tc_controls_create_global: out of memory")
        }
        defer { tc_controls_destroy(list) }
        try fill(list, with: controls, context: "global control table")
        return read(list)
    }

    /// A control of libcamera's global table: its element type and, where the ControlId says
    /// (libcamera 0.4+), whether it is an array and its fixed length (0 = any length).
    struct GlobalControl {
        var type: tc_value_type
        /// False before 0.4: the ControlId has no array-ness (isArray false, arrayLength 0), and
        /// values keep the shape they are given.
        var arrayShapeKnown: Bool
        var isArray: Bool
        var arrayLength: Int
    }

    /// The control named `name` in libcamera's global table (`controls::controls`, through
    /// `tc_global_control_find`), or nil when this libcamera has no such control.
    static func globalControl(named name: String) -> GlobalControl? {
        var info = tc_control_info()
        guard tc_global_control_find(name, &info) == TC_OK else { return nil }
        return GlobalControl(type: info.type, arrayShapeKnown: info.array_shape_known, isArray: info.is_array,
                             arrayLength: info.array_length)
    }

    /// A `ControlValue` for a shim value, or nil when it has no equivalent (points, bool arrays,
    /// several rectangles). Unsigned values widen to the next signed type.
    static func controlValue(_ value: tc_value) -> ControlValue? {
        let count = value.count
        guard let data = value.data else { return value.type == TC_VALUE_STRING ? .string("") : nil }
        func elements<T>(_ type: T.Type) -> [T] {
            Array(UnsafeBufferPointer(start: data.assumingMemoryBound(to: T.self), count: count))
        }
        switch value.type {
        case TC_VALUE_BOOL:
            return value.is_array || count != 1 ? nil : .bool(elements(Bool.self)[0])
        case TC_VALUE_BYTE:
            let widened = elements(UInt8.self).map(Int32.init)
            return value.is_array ? .int32Array(widened) : widened.first.map(ControlValue.int32)
        case TC_VALUE_UINT16:  // libcamera 0.4+; widened
            let widened = elements(UInt16.self).map(Int32.init)
            return value.is_array ? .int32Array(widened) : widened.first.map(ControlValue.int32)
        case TC_VALUE_UINT32:  // libcamera 0.4+; widened
            let widened = elements(UInt32.self).map(Int64.init)
            return value.is_array ? .int64Array(widened) : widened.first.map(ControlValue.int64)
        case TC_VALUE_INT32:
            let items = elements(Int32.self)
            return value.is_array ? .int32Array(items) : items.first.map(ControlValue.int32)
        case TC_VALUE_INT64:
            let items = elements(Int64.self)
            return value.is_array ? .int64Array(items) : items.first.map(ControlValue.int64)
        case TC_VALUE_FLOAT:
            let items = elements(Float.self)
            return value.is_array ? .floatArray(items) : items.first.map(ControlValue.float)
        case TC_VALUE_STRING:
            return .string(String(decoding: elements(UInt8.self), as: UTF8.self))
        case TC_VALUE_RECTANGLE:
            guard count == 1, let r = elements(tc_rect.self).first else { return nil }
            return .rectangle(PixelRect(x: Int(r.x), y: Int(r.y), width: Int(r.width), height: Int(r.height)))
        case TC_VALUE_SIZE:
            guard count == 1, let s = elements(tc_size.self).first else { return nil }
            return .size(PixelSize(s))
        default:
            return nil
        }
    }

    /// Calls `body` with a shim view of `value` (valid only during the call).
    static func withShimValue<R>(_ value: ControlValue, name: String,
                                 _ body: (UnsafePointer<tc_value>) -> R) throws -> R {
        func scalar<T>(_ item: T, _ type: tc_value_type) -> R {
            withUnsafePointer(to: item) { pointer in
                var shim = tc_value(type: type, is_array: false, count: 1, data: UnsafeRawPointer(pointer))
                return body(&shim)
            }
        }
        func array<T>(_ items: [T], _ type: tc_value_type) -> R {
            items.withUnsafeBufferPointer { buffer in
                var shim = tc_value(type: type, is_array: true, count: buffer.count,
                                    data: buffer.baseAddress.map(UnsafeRawPointer.init))
                return body(&shim)
            }
        }
        switch value {
        case .bool(let v): return scalar(v, TC_VALUE_BOOL)
        case .int32(let v): return scalar(v, TC_VALUE_INT32)
        case .int64(let v): return scalar(v, TC_VALUE_INT64)
        case .float(let v): return scalar(v, TC_VALUE_FLOAT)
        case .int32Array(let a): return array(a, TC_VALUE_INT32)
        case .int64Array(let a): return array(a, TC_VALUE_INT64)
        case .floatArray(let a): return array(a, TC_VALUE_FLOAT)
        case .rectangle(let r):
            guard let x = Int32(exactly: r.x), let y = Int32(exactly: r.y),
                  let w = UInt32(exactly: r.width), let h = UInt32(exactly: r.height) else {
                throw HardwareError(.invalidArgument, "libcamera: \(name): rectangle \(r) out of range")
            }
            return scalar(tc_rect(x: x, y: y, width: w, height: h), TC_VALUE_RECTANGLE)
        case .size(let s):
            guard let w = UInt32(exactly: s.width), let h = UInt32(exactly: s.height) else {
                throw HardwareError(.invalidArgument, "libcamera: \(name): size \(s) out of range")
            }
            return scalar(tc_size(width: w, height: h), TC_VALUE_SIZE)
        case .string(let s):
            return Array(s.utf8).withUnsafeBufferPointer { buffer in
                var shim = tc_value(type: TC_VALUE_STRING, is_array: true, count: buffer.count,
                                    data: buffer.baseAddress.map(UnsafeRawPointer.init))
                return body(&shim)
            }
        }
    }
}

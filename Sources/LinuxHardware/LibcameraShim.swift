import CCameraShim
import Hardware

/// Turns a shim status into a thrown `HardwareError` whose message names the call and the shim's
/// last error for the handle.
func checkShim(_ status: tc_status, _ call: @autoclosure () -> String, lastError: () -> String) throws {
    guard status != TC_OK else { return }
    let detail = lastError()
    let message = "libcamera: \(call()): \(detail.isEmpty ? String(cString: tc_status_name(status)) : detail)"
    throw HardwareError(hardwareErrorKind(status), message)
}

func hardwareErrorKind(_ status: tc_status) -> HardwareError.Kind {
    switch status {
    case TC_ERR_NOT_FOUND: .notFound
    case TC_ERR_BUSY: .busy
    case TC_ERR_INVALID_ARGUMENT: .invalidArgument
    case TC_ERR_UNSUPPORTED: .unsupported
    case TC_ERR_IO: .io
    case TC_ERR_DISCONNECTED: .disconnected
    default: .other
    }
}

/// Owns a `tc_manager` (libcamera's CameraManager). Cameras opened from it keep it alive, so it is
/// destroyed only after the last of them is closed.
final class ManagerHandle: @unchecked Sendable {
    // @unchecked: the pointer is used from the owner's thread only (see tripod_camera.h).
    let pointer: OpaquePointer

    init() throws {
        guard let pointer = tc_manager_create() else {
            throw HardwareError(.other, "libcamera: tc_manager_create: out of memory")
        }
        self.pointer = pointer
    }

    deinit { tc_manager_destroy(pointer) }

    var lastError: String { String(cString: tc_manager_last_error(pointer)) }
}

/// Owns an open `tc_camera` (an acquired libcamera Camera). Frame buffers lent to Swift keep it
/// alive; `tc_camera_close` runs when the camera object and every buffer are gone.
final class CameraHandle: @unchecked Sendable {
    // @unchecked: configuration calls come from the owner's thread; `releaseBuffer` is thread-safe.
    let pointer: OpaquePointer
    private let manager: ManagerHandle

    init(pointer: OpaquePointer, manager: ManagerHandle) {
        self.pointer = pointer; self.manager = manager
    }

    deinit { tc_camera_close(pointer) }

    var lastError: String { String(cString: tc_camera_last_error(pointer)) }

    /// Gives a lent buffer back to its stream's pool (`tc_buffer_release`); any thread.
    func releaseBuffer(stream: UInt32, buffer: UInt32) { tc_buffer_release(pointer, stream, buffer) }
}

extension StreamRole {
    var shimRole: tc_role {
        switch self {
        case .raw: TC_ROLE_RAW
        case .stillCapture: TC_ROLE_STILL
        case .videoRecording: TC_ROLE_VIDEO
        case .viewfinder: TC_ROLE_VIEWFINDER
        }
    }
}

extension CameraLocation {
    init(_ location: tc_location) {
        switch location {
        case TC_LOCATION_FRONT: self = .front
        case TC_LOCATION_BACK: self = .back
        case TC_LOCATION_EXTERNAL: self = .external
        default: self = .unknown
        }
    }
}

extension PixelSize {
    init(_ size: tc_size) { self.init(width: Int(size.width), height: Int(size.height)) }
}

extension CameraInfo {
    init(_ info: tc_camera_info) {
        let unitCell = PixelSize(info.unit_cell_size_nm)
        self.init(id: String(cString: info.id), model: String(cString: info.model),
                  location: CameraLocation(info.location), pixelArraySize: PixelSize(info.pixel_array_size),
                  unitCellSizeNanometres: unitCell.area > 0 ? unitCell : nil)
    }
}

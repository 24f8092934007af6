import CCameraShim
import Hardware

/// Lists and opens libcamera cameras (`CameraProvider`) through the shim's CameraManager.
///
/// `start()` starts libcamera's CameraManager and `stop()` stops it; both can be repeated. libcamera
/// allows one CameraManager per process, so a second started provider gets `.busy`. With no
/// camera attached everything works: `cameras()` is empty and `open(id:)` throws `.notFound`
/// saying "no camera". Cameras opened from it keep libcamera running until they are released.
public final class LibcameraProvider: CameraProvider {
    private var manager: ManagerHandle?

    /// A stopped provider.
    public init() {}

    /// The version string of the libcamera this process runs with (`CameraManager::version()`),
    /// e.g. "v0.0.3" or "v0.7.1+rpt20260429".
    public static var libcameraVersion: String { String(cString: tc_libcamera_version()) }

    /// The libcamera headers the shim was compiled against (`LIBCAMERA_VERSION_*`), "0.7.1".
    public static var libcameraHeaderVersion: String { String(cString: tc_libcamera_header_version()) }

    /// True when the library this process runs with is the one the shim was compiled for (its
    /// version string starts with "v" + the header version). False means a mismatched link.
    public static var runsCompiledLibcamera: Bool {
        libcameraVersion.hasPrefix("v" + libcameraHeaderVersion)
    }

    /// True between `start()` and `stop()`.
    public var isStarted: Bool { manager != nil }

    /// Starts libcamera (`CameraManager::start`). Does nothing when already started.
    public func start() throws {
        guard manager == nil else { return }
        let handle = try ManagerHandle()
        try checkShim(tc_manager_start(handle.pointer), "CameraManager::start") { handle.lastError }
        manager = handle
    }

    /// Stops libcamera (`CameraManager::stop`) once every camera opened from this provider is
    /// released; until then they keep it running.
    public func stop() { manager = nil }

    /// The cameras libcamera lists now (`CameraManager::cameras()` and their properties); empty
    /// when stopped or when there is no camera.
    public func cameras() -> [CameraInfo] {
        guard let manager else { return [] }
        let count = tc_manager_camera_count(manager.pointer)
        return (0..<count).compactMap { index in
            var info = tc_camera_info()
            guard tc_manager_camera_info(manager.pointer, index, &info) == TC_OK else { return nil }
            return CameraInfo(info)
        }
    }

    /// One line for logs and the console: the libcamera version and the cameras, or "no camera".
    public func summary() -> String {
        let list = cameras()
        let version = "libcamera \(Self.libcameraVersion)"
        guard isStarted else { return "\(version): not started" }
        if list.isEmpty { return "\(version): no camera found" }
        return "\(version): " + list.map { "\($0.id) (\($0.model))" }.joined(separator: ", ")
    }

    /// Opens and acquires a camera (`CameraManager::get` + `Camera::acquire`). Throws `.notFound`
    /// naming the id and the cameras that exist ("no camera" when there are none), `.busy` when
    /// another process holds it.
    public func open(id: String) throws -> any CameraDevice {
        try openCamera(id: id)
    }

    /// `open(id:)` with the concrete type.
    public func openCamera(id: String) throws -> LibcameraCamera {
        guard let manager else {
            throw HardwareError(.other, "libcamera: open camera '\(id)': provider not started (call start() first)")
        }
        let available = cameras()
        guard let info = available.first(where: { $0.id == id }) else {
            let existing = available.isEmpty ? "no camera found"
                : "cameras: " + available.map { "'\($0.id)'" }.joined(separator: ", ")
            throw HardwareError(.notFound, "libcamera: open camera '\(id)': no such camera (\(existing))")
        }
        var pointer: OpaquePointer?
        try checkShim(tc_camera_open(manager.pointer, id, &pointer), "open camera '\(id)'") { manager.lastError }
        guard let pointer else {
            throw HardwareError(.other, "libcamera: open camera '\(id)': no handle returned")
        }
        return try LibcameraCamera(info: info, handle: CameraHandle(pointer: pointer, manager: manager))
    }
}

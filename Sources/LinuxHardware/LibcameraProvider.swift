import CCameraShim
import Hardware
import Syscalls

/// Lists and opens libcamera cameras (`CameraProvider`) through the shim's CameraManager.
///
/// `start()` starts libcamera's CameraManager and `stop()` stops it; both can be repeated. libcamera
/// allows one CameraManager per process, so a second started provider gets `.busy`. With no
/// camera attached everything works: `cameras()` is empty and `open(id:)` throws `.notFound`
/// saying "no camera". Cameras opened from it keep libcamera running until they are released.
public final class LibcameraProvider: CameraProvider {
    private var manager: ManagerHandle?
    /// The cameras opened from it, while they are open (the sensor's HDR switches only once all are released).
    private var opened: [WeakCameraHandle] = []
    /// Where the sensors' subdevices are found (`/sys`, `/dev`), and their HDR control.
    let sysfsRoot: String, devRoot: String
    let sensorHDRControl: SensorHDRControl

    /// A stopped provider. `syscalls`, `sysfsRoot` and `devRoot` reach the sensors' subdevices
    /// (the sensor's own HDR, `SensorHDRSwitch`); tests give a fake tree.
    public init(syscalls: any SystemCalls = SystemSyscalls(), sysfsRoot: String = "/sys", devRoot: String = "/dev") {
        self.sysfsRoot = sysfsRoot
        self.devRoot = devRoot
        self.sensorHDRControl = SensorHDRControl(syscalls: syscalls)
    }

    /// The version string of the libcamera this process runs with (`CameraManager::version()`),
    /// e.g. "v0.0.3", "v0.7.1" (built from a tarball) or "v0.7.1+rpt20260429" (from the git tag).
    public static var libcameraVersion: String { String(cString: tc_libcamera_version()) }

    /// The libcamera headers the shim was compiled against (`LIBCAMERA_VERSION_*`), "0.7.1".
    public static var libcameraHeaderVersion: String { String(cString: tc_libcamera_header_version()) }

    /// True when the library this process runs with is the one the shim was compiled for: its
    /// version string is "v" + the header version, alone or followed by "+" or "-" (a build from a
    /// git tag adds "+rpt…" or "-<commit>"; a tarball build does not). False means a mismatched link.
    public static var runsCompiledLibcamera: Bool {
        let expected = "v" + libcameraHeaderVersion
        guard libcameraVersion.hasPrefix(expected) else { return false }
        let rest = libcameraVersion.dropFirst(expected.count)
        return rest.isEmpty || rest.hasPrefix("+") || rest.hasPrefix("-")
    }

    /// True between `start()` and `stop()`.
    public var isStarted: Bool { manager != nil }

    /// Starts libcamera (`CameraManager::start`). Does nothing when already started.
    public func start() throws {
        wantsRunning = true
        guard manager == nil else { return }
        let handle = try ManagerHandle()
        try checkShim(tc_manager_start(handle.pointer), "CameraManager::start") { handle.lastError }
        manager = handle
    }

    /// Stops libcamera (`CameraManager::stop`) once every camera opened from this provider is
    /// released; until then they keep it running.
    public func stop() {
        wantsRunning = false
        manager = nil
    }

    /// True between `start()` and `stop()`, even while a restart of the manager (after a sensor HDR
    /// switch) has not succeeded yet: `cameras()` and `open` then try starting it again.
    private var wantsRunning = false

    /// The started manager; a provider that should run but whose restart failed tries once more.
    private var runningManager: ManagerHandle? {
        if manager == nil, wantsRunning { try? start() }
        return manager
    }

    /// The cameras libcamera lists now (`CameraManager::cameras()` and their properties); empty
    /// when stopped or when there is no camera.
    public func cameras() -> [CameraInfo] {
        guard let manager = runningManager else { return [] }
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
        guard let manager = runningManager else {
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
        let handle = CameraHandle(pointer: pointer, manager: manager)
        opened = opened.filter { $0.handle != nil } + [WeakCameraHandle(handle: handle)]
        return try LibcameraCamera(info: info, handle: handle)
    }

    /// True while a camera opened from this provider (or a frame buffer it lent) is still alive.
    var hasOpenCameras: Bool { opened.contains { $0.handle != nil } }
}

/// An opened camera's handle, not kept alive by the provider.
private struct WeakCameraHandle {
    weak var handle: CameraHandle?
}

/// The sensor's own HDR (the IMX708's `wide_dynamic_range`) on its V4L2 subdevice, as rpicam-apps
/// and picamera2 switch it. libcamera reads a sensor's modes when its CameraManager starts, so a
/// switch restarts the manager: every camera must have been released first.
extension LibcameraProvider: SensorHDRSwitch {
    /// The subdevice of a listed camera, by its id and model.
    func sensorSubdevice(cameraID: String) -> SensorSubdevice? {
        let model = cameras().first { $0.id == cameraID }?.model ?? ""
        return SensorSubdevice.find(cameraID: cameraID, model: model, sysfsRoot: sysfsRoot, devRoot: devRoot,
                                     syscalls: sensorHDRControl.syscalls)
    }

    public func hasSensorHDR(cameraID: String) -> Bool {
        guard let subdevice = sensorSubdevice(cameraID: cameraID) else { return false }
        return (try? sensorHDRControl.isPresent(on: subdevice)) ?? false
    }

    public func isSensorHDROn(cameraID: String) -> Bool {
        guard let subdevice = sensorSubdevice(cameraID: cameraID) else { return false }
        return (try? sensorHDRControl.isOn(on: subdevice)) ?? false
    }

    public func setSensorHDR(_ on: Bool, cameraID: String) throws {
        guard let subdevice = sensorSubdevice(cameraID: cameraID) else {
            throw HardwareError(.unsupported, "camera '\(cameraID)': no V4L2 subdevice found for its sensor, so no sensor HDR")
        }
        let what = "\(subdevice.node): wide_dynamic_range \(on ? "on" : "off")"
        let present: Bool
        do throws(SyscallError) { present = try sensorHDRControl.isPresent(on: subdevice) } catch { throw error.hardwareError(what) }
        guard present else {
            throw HardwareError(.unsupported, "camera '\(cameraID)': sensor \(subdevice.name) (\(subdevice.node)) has no wide_dynamic_range control")
        }
        guard !hasOpenCameras else {
            throw HardwareError(.busy, "camera '\(cameraID)': sensor HDR changes only with the camera released")
        }
        do throws(SyscallError) { try sensorHDRControl.set(on, on: subdevice) } catch { throw error.hardwareError(what) }
        // The sensor's modes are read at the manager's start: start it again to see them. Should
        // that fail, `cameras()` and `open` try again (`wantsRunning`).
        guard isStarted else { return }
        manager = nil
        do { try start() } catch {
            throw HardwareError((error as? HardwareError)?.kind ?? .other,
                                "camera '\(cameraID)': wide_dynamic_range is \(on ? "on" : "off") but libcamera did not start again: \(error)")
        }
    }
}

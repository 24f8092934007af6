import Camera
import Foundation
import Controls
import Hardware
import Media

// The state a `CaptureService` owns, grouped by who sets it; the service forwards each field
// under its old name, so callers do not see the grouping.

/// The capture service's memory and time limits (tests and benchmarks change them).
struct CaptureLimits {
    /// Extra buffers per stream `prepare` allocates for bracket requests; the engine keeps at most
    /// this many minus 2 (frames being copied out) outstanding.
    var bracketBuffersPerStream = 8
    /// Memory for frames awaiting write, bytes (a quarter of physical memory by default).
    var memoryBudgetBytes = Int64(clamping: ProcessInfo.processInfo.physicalMemory / 4)
    /// How long a capture waits for the camera's first frame before it fails.
    var firstFrameWait: Duration = .seconds(2)
}

/// What the capture service has done since it was made, for `status`.
struct CaptureCounters {
    var bracketsSaved = 0
    var bracketsFailed = 0
    /// Recent shutter lags of button captures (trigger → first bracket request queued).
    var lags = ShutterLagStatistics()
}

/// What comes up after the capture service is made, each set by one `attach…` call from the
/// composition (Supervisor's Composition.swift).
struct CaptureAttachments {
    /// Makes each saved bracket's gyro log; nil without an IMU.
    var gyroLogs: GyroLogMaker?
    /// Makes the stabilization gate each capture asks before and after every frame: true for a
    /// bracket, false for a single capture (the null gate until stabilization runs).
    var makeFrameGate: (_ bracket: Bool) -> any BracketFrameGate = { _ in UngatedFrames() }
    /// Hears each frame a capture keeps (bracket id, 1-based frame, the request), as it is
    /// matched, before it is written: a recording lists the stills taken during it.
    var onFrameKept: (_ bracketID: String, _ frame: Int, _ request: CompletedRequest) -> Void = { _, _, _ in }
}

/// The capture store's writer: made on first use with the camera's sensor (identity, black level,
/// ISO convention) and the camera's serial number, then kept. Loop-confined.
final class FrameWriterSlot {
    /// Whether the writer was made yet.
    enum State {
        /// No capture yet: the writer waits for the first camera's sensor.
        case awaitingFirstCapture
        /// Made for the first camera a capture used, and kept for every capture after it.
        case made(FrameWriter)
    }

    let storage: any Storage
    /// The camera's serial number for the EXIF; nil: none.
    let serialNumber: String?
    private let loop: any EventLoop
    private(set) var state = State.awaitingFirstCapture

    init(storage: any Storage, serialNumber: String?, loop: any EventLoop) {
        self.storage = storage; self.serialNumber = serialNumber; self.loop = loop
    }

    /// The writer, made now if it is the first use.
    func writer(for camera: CameraController) -> FrameWriter {
        if case .made(let writer) = state { return writer }
        var configuration = CaptureStore.Configuration(sensor: camera.sensor)
        configuration.camera.serialNumber = serialNumber
        let made = FrameWriter(storage: storage, configuration: configuration, loop: loop)
        state = .made(made)
        return made
    }
}

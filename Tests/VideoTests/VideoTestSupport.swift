import Foundation
import Hardware
import LinuxHardware
import ManualLoop
import SimulatedHardware
@testable import Video

/// A fresh directory under the system temporary directory.
func makeTemporaryDirectory() throws -> String {
    let path = NSTemporaryDirectory() + "tripod-video-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

struct ToolError: Error, CustomStringConvertible {
    var description: String
}

/// A synthetic I420 frame: a luma ramp that moves with `sequence` and flat chroma that changes
/// slowly, so the encoder sees motion and each frame differs.
func makeFrame(_ sequence: UInt64, at time: MonotonicTime, size: PixelSize = PixelSize(width: 320, height: 240),
               padding: Int = 32) throws -> VideoFrame {
    let stride = size.width + padding
    return try VideoFrame(size: size, stride: stride, sequence: sequence, sensorTimestamp: time) { bytes in
        let shift = Int(sequence % 256) * 3
        for y in 0..<size.height {
            for x in 0..<size.width { bytes[y * stride + x] = UInt8(truncatingIfNeeded: x + y + shift) }
        }
        let chroma = stride * size.height
        for i in chroma..<bytes.count { bytes[i] = UInt8(truncatingIfNeeded: 128 + Int(sequence % 32)) }
    }
}

/// Sensor timestamps starting at `origin`: nominal `interval` with ±`jitterMicroseconds` of
/// deterministic wobble (a variable frame rate, like a real sensor's), odd nanoseconds included.
func sensorTimes(count: Int, origin: MonotonicTime = MonotonicTime(nanoseconds: 7_000_000_123),
                 interval: Duration = .nanoseconds(33_333_333), jitterMicroseconds: Int64 = 900) -> [MonotonicTime] {
    (0..<count).map { i in
        let wobble = ((Int64(i) * 7919) % (2 * jitterMicroseconds + 1) - jitterMicroseconds) * 1000 + Int64(i % 3)
        return origin + .nanoseconds(interval.nanoseconds * Int64(i) + wobble)
    }
}

/// What ffprobe reads from a video file (decoding every frame).
struct Probe {
    var codec: String
    var width: Int
    var height: Int
    var timeBase: String
    /// Every decoded frame's PTS, in the stream's time base, in presentation order.
    var framePTS: [Int64]
}

/// Runs ffprobe (installed by tools/setup; missing is a failure, not a skip).
func probe(_ file: String) throws -> Probe {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
    process.arguments = ["-v", "error", "-select_streams", "v:0",
                         "-show_entries", "stream=codec_name,width,height,time_base:frame=pts", "-of", "json", file]
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/ffprobe") else {
        throw ToolError(description: "ffprobe is not installed: run tools/setup (package ffmpeg)")
    }
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0,
          let json = try JSONSerialization.jsonObject(with: data) as? [String: Any],
          let stream = (json["streams"] as? [[String: Any]])?.first else {
        throw ToolError(description: "ffprobe could not read \(file) (status \(process.terminationStatus))")
    }
    let frames = (json["frames"] as? [[String: Any]]) ?? []
    return Probe(codec: stream["codec_name"] as? String ?? "", width: stream["width"] as? Int ?? 0,
                 height: stream["height"] as? Int ?? 0, timeBase: stream["time_base"] as? String ?? "",
                 framePTS: frames.compactMap { ($0["pts"] as? NSNumber)?.int64Value })
}

/// A recording service on a temporary directory with a manual loop; events are collected.
final class RecordingHarness: @unchecked Sendable {
    let directory: String
    let storage: any StreamingStorage & Sendable
    let loop = ManualEventLoop()
    let service: RecordingService
    private let collected = LockedValue<[RecordingEvent]>([])

    init(storage: (any StreamingStorage & Sendable)? = nil, directory: String? = nil) throws {
        let directory = try directory ?? makeTemporaryDirectory()
        self.directory = directory
        let storage = try storage ?? PosixStorage(root: directory)
        self.storage = storage
        let collected = self.collected
        service = RecordingService(storage: storage, loop: loop) { event in collected.withLock { $0.append(event) } }
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    /// Waits for the encoder queue, then runs the loop so events are delivered.
    func settle() -> [RecordingEvent] {
        service.drain()
        loop.run()
        return collected.withLock { $0 }
    }

    var sidecars: [VideoSidecar] {
        settle().compactMap { if case .fileClosed(let s) = $0 { s } else { nil } }
    }

    var stops: [(id: String, error: VideoError?)] {
        settle().compactMap { if case .stopped(let id, let error) = $0 { (id, error) } else { nil } }
    }

    func path(_ relative: String) -> String { directory + "/" + relative }

    /// Submits frames with the given sequence numbers and times, waiting for each to be encoded
    /// (so no frame is dropped for being early; back-pressure has its own test).
    func feed(_ sequences: [UInt64], _ times: [MonotonicTime], size: PixelSize = PixelSize(width: 320, height: 240)) throws {
        for (sequence, time) in zip(sequences, times) {
            var frame = try makeFrame(sequence, at: time, size: size)
            frame.exposure = FrameExposure(exposureTimeMicroseconds: 10_000 + Double(sequence % 5), analogueGain: 2, colourTemperatureKelvin: 5000)
            frame.wallClockNanoseconds = 1_790_000_000_000_000_000 + time.nanoseconds
            service.submit(frame)
            service.drain()
        }
    }
}

/// A `StreamingStorage` over a real directory whose streams fail with ENOSPC (or EIO) once
/// `failAfterBytes` bytes were written in total, and whose free space can be set.
final class FaultyStorage: StreamingStorage, @unchecked Sendable {
    private let real: PosixStorage
    private let lock = NSLock()
    private var written = 0
    var failAfterBytes: Int?
    var fault: HardwareError = HardwareError(.noSpace, "write: No space left on device (injected)", errno: ENOSPC)
    var freeBytesOverride: Int64?
    /// When set, the first stream write waits for it (a stalled disk), after signalling `stalled`.
    var gate: DispatchSemaphore?
    let stalled = DispatchSemaphore(value: 0)

    init(root: String) throws { real = try PosixStorage(root: root) }

    var rootDescription: String { real.rootDescription }
    func writeAtomically(_ bytes: [UInt8], to path: String) throws { try real.writeAtomically(bytes, to: path) }
    func read(_ path: String) throws -> [UInt8] { try real.read(path) }
    func fileExists(_ path: String) -> Bool { real.fileExists(path) }
    func list(_ directory: String) throws -> [String] { try real.list(directory) }
    func createDirectory(_ path: String) throws { try real.createDirectory(path) }
    func remove(_ path: String) throws { try real.remove(path) }
    func freeBytes() throws -> Int64 { try freeBytesOverride ?? real.freeBytes() }

    func createStream(_ path: String) throws -> any StorageStream {
        FaultyStream(inner: try real.createStream(path), owner: self)
    }

    /// How many of `count` bytes may still be written (nil: all).
    fileprivate func allow(_ count: Int) -> Int? {
        if let gate = lock.withLock({ () -> DispatchSemaphore? in defer { self.gate = nil }; return self.gate }) {
            stalled.signal()
            gate.wait()
        }
        return lock.withLock {
            guard let limit = failAfterBytes else { return nil }
            let allowed = max(0, min(count, limit - written))
            written += allowed
            return allowed == count ? nil : allowed
        }
    }
}

private final class FaultyStream: StorageStream {
    let inner: any StorageStream
    let owner: FaultyStorage
    init(inner: any StorageStream, owner: FaultyStorage) { self.inner = inner; self.owner = owner }
    var offset: Int64 { inner.offset }
    var size: Int64 { inner.size }
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        if let allowed = owner.allow(bytes.count) {
            // Like a full disk: part of the write lands, then the error.
            try inner.write(UnsafeRawBufferPointer(rebasing: bytes[0..<allowed]))
            throw owner.fault
        }
        try inner.write(bytes)
    }
    func seek(to offset: Int64) throws { try inner.seek(to: offset) }
    func sync() throws { try inner.sync() }
    func close() throws { try inner.close() }
}

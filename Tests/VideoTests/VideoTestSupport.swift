import Foundation
import Hardware
import LinuxHardware
import ManualLoop
import SimulatedHardware
@_exported import TestSupport
@testable import Video

/// A fresh directory under the system temporary directory.
func makeTemporaryDirectory() throws -> String {
    let path = NSTemporaryDirectory() + "tripod-video-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
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

/// A recording service on a temporary directory with a manual loop; events are collected.
final class RecordingHarness: @unchecked Sendable {
    let directory: String
    let storage: any StreamingStorage & Sendable
    let loop = ManualEventLoop()
    let service: RecordingService
    private let collected = LockedValue<[RecordingEvent]>([])

    init(storage: (any StreamingStorage & Sendable)? = nil, directory: String? = nil, speedProbe: (any EncoderSpeedProbe)? = nil) throws {
        let directory = try directory ?? makeTemporaryDirectory()
        self.directory = directory
        let storage = try storage ?? PosixStorage(root: directory)
        self.storage = storage
        let collected = self.collected
        service = RecordingService(storage: storage, loop: loop, speedProbe: speedProbe) { event in collected.withLock { $0.append(event) } }
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

import Foundation
import Glibc
import Hardware
import LinuxHardware
import ManualLoop
import Settings
import Stream
import Video

/// `tools/bench stream`: the live stream's latency (docs/stream.md), from each frame's
/// SensorTimestamp to the client's decoded frame, on the loopback. Synthetic 1280×720 frames at
/// 30 fps in real time carry their number in 16 black/white blocks; they go through the stream's
/// encoder (RecordingService with the stream on, nothing recording) into the RTSP server; ffmpeg
/// (`-rtsp_transport tcp`/`udp`, no buffering) decodes and writes the blocks' band as grey pixels to
/// a pipe, where each frame's number is read back and timed on arrival.
struct StreamBenchmark: Benchmark {
    static let name = "stream"
    static let summary = "live RTSP stream: SensorTimestamp → frame decoded by ffmpeg on the loopback, p50/p99 (ms)"

    static let size = PixelSize(width: 1280, height: 720)
    static let framesPerSecond = 30.0
    static let frames = 600
    /// Decoded frames not counted at the start (the client's start-up and first keyframe).
    static let warmUpFrames = 30
    static let bits = 16, blockSize = 64, bandTop = 32

    init() {}

    func run() throws -> BenchmarkReport {
        var rows: [[String]] = []
        var metrics: [String: Double] = [:]
        for transport in ["tcp", "udp"] {
            let result = try measure(transport: transport)
            let p50 = percentile(result.latencies, 50), p99 = percentile(result.latencies, 99)
            rows.append([transport, String(Self.frames), String(result.latencies.count), String(result.dropped),
                         fmt(p50), fmt(p99), fmt(result.latencies.max() ?? .nan)])
            metrics["\(transport)-p50-ms"] = p50
            metrics["\(transport)-p99-ms"] = p99
        }
        return BenchmarkReport(
            columns: ["transport", "frames sent", "frames timed", "stream dropped", "latency p50 ms", "p99 ms", "max ms"],
            rows: rows,
            notes: ["this machine: \(MotionBenchmark.hostModel()), load \(loadAverage()) (shared: other builds may run)",
                    "1280x720 at 30 fps, libx264 with the recorder's options at \(SettingsTable.streamBitrate.key) 4M; ffmpeg -fflags nobuffer -flags low_delay; the first \(Self.warmUpFrames) decoded frames not counted",
                    "from the frame's SensorTimestamp as the encoder gets it: a camera's sensor-to-application delay (readout, ISP; about one frame) comes on top"],
            metrics: metrics)
    }

    private func fmt(_ v: Double) -> String { String(format: "%.1f", v) }

    struct Result { var latencies: [Double]; var dropped: UInt64 }

    private func measure(transport: String) throws -> Result {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tripod-bench-stream-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = try PosixStorage(root: directory.path)
        let server = try RTSPServer(address: "127.0.0.1", port: 0, credentials: nil)
        defer { server.stop() }
        let service = RecordingService(storage: storage, loop: ManualEventLoop()) { _ in }
        try service.configure(VideoSettings())
        service.setStream(server, bitrateBitsPerSecond: 4_000_000)
        defer { service.setStream(nil, bitrateBitsPerSecond: 0); service.drain() }

        let sent = LockedValue<[Int: Int64]>([:])
        let arrivals = LockedValue<[(Int, Int64)]>([])
        let band = (width: Self.size.width, height: Self.blockSize)
        let client = Process()
        client.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        client.arguments = ["-v", "error", "-fflags", "nobuffer", "-flags", "low_delay", "-rtsp_transport", transport,
                            "-i", server.url, "-an", "-vf", "crop=\(band.width):\(band.height):0:\(Self.bandTop)",
                            "-pix_fmt", "gray", "-f", "rawvideo", "-"]
        let pipe = Pipe()
        client.standardOutput = pipe
        client.standardError = FileHandle.nullDevice
        let reader = Thread {
            let handle = pipe.fileHandleForReading
            let frameBytes = band.width * band.height
            var pending = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { return }
                pending.append(chunk)
                while pending.count >= frameBytes {
                    let now = monotonicNanoseconds()
                    let frame = [UInt8](pending.prefix(frameBytes))
                    pending.removeFirst(frameBytes)
                    let number = Self.readNumber(frame, width: band.width)
                    arrivals.withLock { $0.append((number, now)) }
                }
            }
        }
        reader.start()

        let images = (0..<4).map { Self.background($0) }
        let start = monotonicNanoseconds()
        var clientStarted = false
        for i in 0..<Self.frames {
            let due = start + Int64(Double(i) * 1e9 / Self.framesPerSecond)
            let wait = due - monotonicNanoseconds()
            if wait > 0 { Thread.sleep(forTimeInterval: Double(wait) / 1e9) }
            let stamp = monotonicNanoseconds()
            var image = images[i % images.count]
            Self.stamp(i, into: &image)
            let frame = try VideoFrame(size: Self.size, stride: Self.size.width, sequence: UInt64(i),
                                       sensorTimestamp: MonotonicTime(nanoseconds: stamp)) { buffer in
                image.withUnsafeBytes { buffer.copyMemory(from: $0) }
            }
            sent.withLock { $0[i] = stamp }
            service.submit(frame)
            if !clientStarted, i == 5 { try client.run(); clientStarted = true }
        }
        Thread.sleep(forTimeInterval: 1)  // the last frames reach the client
        client.terminate()
        for _ in 0..<30 where client.isRunning { Thread.sleep(forTimeInterval: 0.1) }
        if client.isRunning { kill(client.processIdentifier, SIGKILL) }  // stuck in its RTSP set-up
        client.waitUntilExit()
        let stamps = sent.withLock { $0 }
        let timed = arrivals.withLock { $0 }.dropFirst(Self.warmUpFrames)
        let latencies = timed.compactMap { number, arrived in stamps[number].map { Double(arrived - $0) / 1e6 } }
        return Result(latencies: latencies, dropped: server.counts.dropped)
    }

    /// A textured I420 frame (mid-grey chroma).
    static func background(_ n: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 128, count: size.width * size.height * 3 / 2)
        var state = UInt32(n + 1)
        for y in 0..<size.height {
            for x in 0..<size.width {
                state = state &* 1_664_525 &+ 1_013_904_223
                bytes[y * size.width + x] = UInt8(truncatingIfNeeded: 60 + (x + 3 * n) / 16 + y / 12 + Int(state >> 28))
            }
        }
        return bytes
    }

    /// Writes `number`'s 16 bits as white (1) or black (0) blocks along the band.
    static func stamp(_ number: Int, into image: inout [UInt8]) {
        for bit in 0..<bits {
            let value: UInt8 = (number >> bit) & 1 == 1 ? 235 : 16
            let left = blockSize + bit * (blockSize + 8)
            for y in bandTop..<(bandTop + blockSize) {
                for x in left..<(left + blockSize) { image[y * size.width + x] = value }
            }
        }
    }

    /// The number in a decoded band (the centre of each block, thresholded).
    static func readNumber(_ band: [UInt8], width: Int) -> Int {
        var number = 0
        for bit in 0..<bits {
            let x = blockSize + bit * (blockSize + 8) + blockSize / 2
            if band[(blockSize / 2) * width + x] > 128 { number |= 1 << bit }
        }
        return number
    }
}

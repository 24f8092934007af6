import Foundation
import Hardware
import Triggers

/// `tools/bench motion`: the cost per frame of motion detection (docs/triggers.md): the luma
/// thumbnail taken from the frame formats the firmware reads, then the background model, on
/// synthetic frames with a moving block and noise. Single-threaded, as on the camera loop.
/// The Cortex-A53 (Pi Zero 2 W) and A76 (Pi 5) figures are extrapolations (see the notes), not measurements.
struct MotionBenchmark: Benchmark {
    static let name = "motion"
    static let summary = "motion detection: thumbnail + background model per frame (ms), extrapolated to A53/A76"

    /// Assumed speed of one core relative to this machine's per clock (instructions per cycle on
    /// this byte-per-cell work), and the boards' clocks: an estimate, said so in the table.
    static let boards: [(name: String, clockGHz: Double, relativeIPC: Double)] = [
        ("Cortex-A53 1.0 GHz (Pi Zero 2 W)", 1.0, 0.35),
        ("Cortex-A76 2.4 GHz (Pi 5)", 2.4, 0.8),
    ]

    init() {}

    func run() throws -> BenchmarkReport {
        let clockGHz = Self.hostClockGHz()
        var rows: [[String]] = []
        var metrics: [String: Double] = [:]
        let cases: [(label: String, format: PixelFormat, width: Int, height: Int, thumb: (Int, Int))] = [
            ("640x360 BGR888 (sim viewfinder copy) → 160x120", .bgr888, 640, 360, (160, 120)),
            ("1280x720 YUV420 (video stream) → 160x120", .yuv420, 1280, 720, (160, 120)),
            ("1920x1080 YUV420 (video stream) → 160x120", .yuv420, 1920, 1080, (160, 120)),
            ("1920x1080 YUV420 (video stream) → 320x240", .yuv420, 1920, 1080, (320, 240)),
        ]
        for c in cases {
            let frames = (0..<8).map { Self.frame(c.format, c.width, c.height, blockAt: $0 * 40) }
            var detector = MotionDetector()
            var thumbTimes: [Double] = [], detectTimes: [Double] = []
            for k in 0..<1500 {
                let t0 = monotonicNanoseconds()
                guard let thumb = LumaThumbnail(frames[k % frames.count], width: c.thumb.0, height: c.thumb.1) else {
                    throw BenchError("cannot read \(c.label)")
                }
                let t1 = monotonicNanoseconds()
                _ = detector.observe(thumb)
                let t2 = monotonicNanoseconds()
                if k >= 100 { thumbTimes.append(Double(t1 - t0) / 1e6); detectTimes.append(Double(t2 - t1) / 1e6) }
            }
            let total = zip(thumbTimes, detectTimes).map { $0 + $1 }
            let p50 = percentile(total, 50), p99 = percentile(total, 99)
            var row = [c.label, fmt(percentile(thumbTimes, 50)), fmt(percentile(detectTimes, 50)), fmt(p50), fmt(p99)]
            for board in Self.boards {
                row.append(fmt(p50 * clockGHz / (board.clockGHz * board.relativeIPC)))
            }
            rows.append(row)
            metrics["\(c.width)x\(c.height)-\(c.format.rawValue)-\(c.thumb.0)-p50-ms"] = p50
        }
        return BenchmarkReport(
            columns: ["frame → thumbnail", "thumb p50 ms", "model p50 ms", "total p50 ms", "total p99 ms"]
                + Self.boards.map { "\($0.name) est. ms" },
            rows: rows,
            notes: ["this machine: \(Self.hostModel()) at \(fmt(clockGHz)) GHz, load \(loadAverage()) (shared: other builds may run)",
                    "A53/A76: p50 × this clock ÷ (board clock × assumed IPC relative to this core: A53 0.35, A76 0.8) — an estimate, not a measurement on the boards",
                    "1,400 frames per row after 100 warm-up frames; 8 synthetic frames cycled (a moving dark block, noise)"],
            metrics: metrics)
    }

    private func fmt(_ v: Double) -> String { String(format: "%.3f", v) }

    /// A textured frame with a dark block at `blockAt` pixels from the left and some noise.
    static func frame(_ format: PixelFormat, _ w: Int, _ h: Int, blockAt: Int) -> FrameBuffer {
        let bpp = format == .yuv420 ? 1 : 3
        let stride = w * bpp
        var bytes = [UInt8](repeating: 128, count: format == .yuv420 ? w * h * 3 / 2 : stride * h)
        var state: UInt32 = 12345
        for y in 0..<h {
            for x in 0..<w {
                state = state &* 1_664_525 &+ 1_013_904_223
                var v = 60 + 80 * (((x / 40) + (y / 40)) % 2) + Int(state >> 29)
                if x >= blockAt && x < blockAt + w / 8 && y >= h / 3 && y < h / 3 + h / 6 { v = 20 }
                for k in 0..<bpp { bytes[y * stride + x * bpp + k] = UInt8(v) }
            }
        }
        return FrameBuffer(pixelFormat: format, size: PixelSize(width: w, height: h), stride: stride, bytes: bytes)
    }

    static func hostModel() -> String {
        let info = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        return info.split(separator: "\n").first { $0.hasPrefix("model name") }.map { String($0.split(separator: ":").last ?? "").trimmingCharacters(in: .whitespaces) } ?? "unknown CPU"
    }

    /// The host's nominal clock, GHz (cpuinfo's MHz; 2.5 when unknown).
    static func hostClockGHz() -> Double {
        let info = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let mhz = info.split(separator: "\n").first { $0.hasPrefix("cpu MHz") }.flatMap { Double($0.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") }
        return (mhz ?? 2500) / 1000
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

import Foundation
import Hardware
import Viewfinder

/// `tools/bench display`: the viewfinder's per-frame cost (convert + scale + overlays) against
/// the 30 and 60 fps frame budgets, with two references measured in the same run: a plain copy
/// of the output bytes (the floor) and Pillow doing the same RGB→XRGB convert and bilinear resize.
struct DisplayBenchmark: Benchmark {
    static let name = "display"
    static let summary = "viewfinder convert+scale+overlay 1920x1080 -> 1920x1080 / 800x480 vs frame budget, memcpy, Pillow"

    static let source = PixelSize(width: 1920, height: 1080)

    /// A BGR888 frame with gradients, a clipped area and edges, so zebra and peaking do real work.
    static func frame() -> FrameBuffer {
        let w = source.width, h = source.height
        var bytes = [UInt8](repeating: 0, count: w * h * 3)
        for y in 0..<h {
            for x in 0..<w {
                let i = (y * w + x) * 3
                let edge = ((x / 64) + (y / 64)) % 2 == 0
                bytes[i] = UInt8(truncatingIfNeeded: x * 255 / w)
                bytes[i + 1] = y > h * 3 / 4 ? 255 : UInt8(truncatingIfNeeded: y * 255 / h)
                bytes[i + 2] = edge ? 230 : 30
            }
        }
        return FrameBuffer(pixelFormat: .bgr888, size: source, stride: w * 3, bytes: bytes)
    }

    static func status() -> ViewfinderStatus {
        var s = ViewfinderStatus()
        s.exposureDurationMicroseconds = 8000; s.iso = 400; s.exposureBiasEV = -0.7
        s.whiteBalance = .kelvin(5600); s.focusMode = "AF-C"; s.lensPositionDioptres = 1.25
        s.format = "YUV 1920x1080"; s.framesPerSecond = 30; s.imuState = "OK 800Hz"
        s.stabilization = .init(mode: "ON", rollDegrees: 0.4, marginUsed: 0.2)
        return s
    }

    /// Median milliseconds of `body` over `iterations` runs after one warm-up.
    static func median(_ iterations: Int, _ body: () throws -> Void) rethrows -> Double {
        try body()
        var times: [Double] = []
        for _ in 0..<iterations {
            let start = monotonicNanoseconds()
            try body()
            times.append(Double(monotonicNanoseconds() - start) / 1e6)
        }
        return percentile(times, 50)
    }

    /// Pillow's median for the same work, or nil (with why) when Python/Pillow is unavailable.
    static func pillow(to size: PixelSize, iterations: Int) -> (ms: Double?, note: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "tools/bench-display-reference.py", "\(source.width)", "\(source.height)",
                             "\(size.width)", "\(size.height)", "\(iterations)"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return (nil, "Pillow reference not run: \(error)") }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
              let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let ms = json["median_ms"] as? Double else {
            return (nil, "Pillow reference failed (exit \(process.terminationStatus))")
        }
        return (ms, "Pillow \(json["pillow"] ?? "?"): Image.frombytes RGB + resize BILINEAR + convert RGBX + tobytes")
    }

    func run() throws -> BenchmarkReport {
        let frame = Self.frame(), status = Self.status()
        var rows: [[String]] = []
        var metrics: [String: Double] = [:]
        var notes: [String] = []
        let fmt = { (v: Double) in String(format: "%.2f", v) }
        for target in [PixelSize(width: 1920, height: 1080), PixelSize(width: 800, height: 480)] {
            let iterations = target.area > 1_000_000 ? 30 : 60
            // Floor: copying the finished XRGB image once (what any scan-out must at least do).
            let output = [UInt32](repeating: 0x123456, count: target.area)
            var copy = output
            let memcpyMs = Self.median(iterations) {
                copy.withUnsafeMutableBytes { dst in output.withUnsafeBytes { dst.copyMemory(from: $0) } }
            }
            let reference = Self.pillow(to: target, iterations: iterations)
            if !notes.contains(reference.note) { notes.append(reference.note) }
            for filter in ScalingFilter.allCases {
                for (label, aids) in [("status+histogram", false), ("+zebra+peaking", true)] {
                    var options = OverlayOptions()
                    options.zebra = aids; options.focusPeaking = aids
                    let renderer = ViewfinderRenderer(displaySize: target, options: options, filter: filter)
                    let ms = try Self.median(iterations) { _ = try renderer.render(frame: frame, status: status) }
                    var scaleOnly = Canvas(size: target)
                    let scaler = FrameScaler(filter: filter)
                    let convertMs = try Self.median(iterations) { try scaler.draw(frame, into: &scaleOnly) }
                    let key = "\(target)_\(filter.rawValue)_\(aids ? "aids" : "plain")"
                    metrics["\(key)_ms"] = ms
                    metrics["\(key)_vs_memcpy"] = ms / memcpyMs
                    if let p = reference.ms { metrics["\(key)_vs_pillow"] = ms / p }
                    rows.append(["1920x1080->\(target)", filter.rawValue, label, fmt(convertMs), fmt(ms),
                                 String(format: "%.0f%%", ms / (1000.0 / 30) * 100),
                                 String(format: "%.0f%%", ms / (1000.0 / 60) * 100),
                                 fmt(memcpyMs), String(format: "%.1fx", ms / memcpyMs),
                                 reference.ms.map(fmt) ?? "n/a",
                                 reference.ms.map { String(format: "%.2fx", ms / $0) } ?? "n/a"])
                }
            }
        }
        notes.append("convert ms = scale+convert only; total ms adds histogram, status text (and zebra+peaking); "
            + "budget = total / frame period (33.3 ms at 30 fps, 16.7 ms at 60 fps); ratios = total / reference")
        return BenchmarkReport(columns: ["case", "filter", "overlays", "convert ms", "total ms", "of 30fps", "of 60fps",
                                         "memcpy ms", "vs memcpy", "Pillow ms", "vs Pillow"],
                               rows: rows, notes: notes, metrics: metrics)
    }
}

import Foundation
import Glibc
import Hardware
import LinuxHardware
import ManualLoop
import Media
import SimulatedHardware

/// DNG and JPEG writing at 12 MP against a plain write+fsync of the same bytes, same run.
struct MediaBenchmark: Benchmark {
    static let name = "media"
    static let summary = "DNG/JPEG encode + atomic write at 12 MP vs plain write+fsync; lossless DNG speed and ratio on the chart; JPEG q92 vs tjbench/cjpeg; 5-frame brackets on a 40 MB/s paced card, lossless vs none"

    func run() throws -> BenchmarkReport {
        let directory = ProcessInfo.processInfo.environment["TRIPOD_BENCH_DIR"] ?? ".bench/media-scratch"
        let m = try measureMediaWrites(frameCount: 15, size: PixelSize(width: 4056, height: 3040), directory: directory)
        func row(_ name: String, _ bytes: Int, _ seconds: [Double], _ reference: [Double]?) -> [String] {
            let total = seconds.reduce(0, +)
            // Medians: on a loaded machine one slow fsync must not decide the ratio.
            let ratio = reference.map { String(format: "%.2f", percentile($0, 50) / percentile(seconds, 50)) } ?? "-"
            return [name, "\(seconds.count)", String(format: "%.1f", Double(bytes) / 1e6),
                    String(format: "%.1f", Double(bytes * seconds.count) / 1e6 / total),
                    String(format: "%.2f", Double(seconds.count) / total),
                    String(format: "%.1f", percentile(seconds.map { $0 * 1000 }, 50)), ratio]
        }
        var rows: [[String]] = [
                row("DNG uncompressed: encode + atomic write", m.dngBytesPerFrame, m.dngSeconds, m.dngPlainSeconds),
                row("  of which fsync, rename, fsync dir after the last write", m.dngBytesPerFrame, m.dngCommitSeconds, nil),
                row("  former path: encode in memory, then atomic write", m.dngBytesPerFrame, m.dngInMemorySeconds, m.dngPlainSeconds),
                row("    of which atomic write", m.dngBytesPerFrame, m.dngAtomicWriteSeconds, m.dngPlainSeconds),
                row("DNG bytes: plain write+fsync", m.dngBytesPerFrame, m.dngPlainSeconds, nil),
                row("JPEG q92: libjpeg encode + EXIF + atomic write", m.jpegBytesPerFrame, m.jpegSeconds, m.jpegPlainSeconds),
                row("  of which atomic write", m.jpegBytesPerFrame, m.jpegAtomicWriteSeconds, m.jpegPlainSeconds),
                row("JPEG bytes: plain write+fsync", m.jpegBytesPerFrame, m.jpegPlainSeconds, nil),
                row("SHA-256 of the DNG: libcrypto (sidecar checksum)", m.dngBytesPerFrame, m.sha256Seconds, m.dngAtomicWriteSeconds),
        ]
        var metrics: [String: Double] = [:]
        var losslessNotes: [String] = []
        for iso in [100, 1600] {
            let l = try measureLosslessDNG(iso: iso, frameCount: 3)
            let rawMB = Double(l.rawBytes) / 1e6
            let ratio = Double(l.uncompressedBytes) / Double(l.losslessBytes)
            let wall = l.losslessWallSeconds.reduce(0, +), cpu = l.losslessCPUSeconds.reduce(0, +)
            let perCore = rawMB * Double(l.losslessWallSeconds.count) / cpu, total = rawMB * Double(l.losslessWallSeconds.count) / wall
            rows.append(["DNG lossless encode, chart ISO \(iso) (\(String(format: "%.2f", ratio)):1)", "\(l.losslessWallSeconds.count)",
                         String(format: "%.1f", Double(l.losslessBytes) / 1e6), String(format: "%.1f", total),
                         String(format: "%.2f", Double(l.losslessWallSeconds.count) / wall),
                         String(format: "%.1f", percentile(l.losslessWallSeconds.map { $0 * 1000 }, 50)),
                         String(format: "%.2f", l.uncompressedWallSeconds.reduce(0, +) / wall)])
            rows.append(["  per core (raw MB / CPU s of all threads)", "\(l.losslessCPUSeconds.count)", "-", String(format: "%.1f", perCore),
                         "-", String(format: "%.1f", percentile(l.losslessCPUSeconds.map { $0 * 1000 }, 50)), "-"])
            rows.append(["DNG uncompressed encode, same frame", "\(l.uncompressedWallSeconds.count)",
                         String(format: "%.1f", Double(l.uncompressedBytes) / 1e6),
                         String(format: "%.1f", rawMB * Double(l.uncompressedWallSeconds.count) / l.uncompressedWallSeconds.reduce(0, +)),
                         String(format: "%.2f", Double(l.uncompressedWallSeconds.count) / l.uncompressedWallSeconds.reduce(0, +)),
                         String(format: "%.1f", percentile(l.uncompressedWallSeconds.map { $0 * 1000 }, 50)), "-"])
            metrics["lossless_iso\(iso)_ratio"] = ratio
            metrics["lossless_iso\(iso)_percent_of_uncompressed"] = 100 / ratio
            metrics["lossless_iso\(iso)_mb_per_s_total"] = total
            metrics["lossless_iso\(iso)_mb_per_s_per_core"] = perCore
            losslessNotes.append("chart ISO \(iso): lossless \(l.losslessBytes) B vs uncompressed \(l.uncompressedBytes) B "
                + "(\(String(format: "%.1f", 100 / ratio)) %), preview and tags included")
        }
        // JPEG q92 of the same RGB frame: Tripod's encode against libjpeg-turbo's own tools.
        let j = try measureJPEGReference(syntheticFrame(.bgr888, size: m.size, bytesPerPixel: 3), rounds: 6, directory: directory)
        // Best round of each: on the shared machine the least loaded one says most about the code.
        let tripodJPEG = j.tripodSeconds.min() ?? .nan, tjbench = j.tjbenchSeconds.min() ?? .nan
        let cjpeg = j.cjpegSeconds.min() ?? .nan, cjpegStart = j.cjpegStartSeconds.min() ?? .nan
        func jpegRow(_ name: String, _ count: Int, _ bytes: Int?, _ seconds: Double, _ ratio: String) -> [String] {
            [name, "\(count)", bytes.map { String(format: "%.1f", Double($0) / 1e6) } ?? "-",
             String(format: "%.1f", Double(j.size.area * 3) / 1e6 / seconds), String(format: "%.2f", 1 / seconds),
             String(format: "%.1f", seconds * 1000), ratio]
        }
        rows.append(jpegRow("JPEG q92 encode: Tripod (JPEGWriter, EXIF, no write)", j.tripodSeconds.count, j.tripodBytes, tripodJPEG, "-"))
        rows.append(jpegRow("  tjbench q92 4:2:0 (libjpeg-turbo in-process)", j.tjbenchSeconds.count, nil, tjbench,
                            String(format: "%.2f", tjbench / tripodJPEG)))
        rows.append(jpegRow("  cjpeg -quality 92 (process, PPM read incl.)", j.cjpegSeconds.count, j.cjpegBytes, cjpeg,
                            String(format: "%.2f", cjpeg / tripodJPEG)))
        rows.append(jpegRow("  cjpeg less its start (cjpeg -version)", j.cjpegSeconds.count, j.cjpegBytes, cjpeg - cjpegStart,
                            String(format: "%.2f", (cjpeg - cjpegStart) / tripodJPEG)))
        let tripodCPU = j.tripodCPUSeconds.min() ?? .nan
        let cjpegCPU = (j.cjpegCPUSeconds.min() ?? .nan) - (j.cjpegStartCPUSeconds.min() ?? .nan)
        rows.append(jpegRow("  CPU time: Tripod's encode (its thread)", j.tripodCPUSeconds.count, j.tripodBytes, tripodCPU, "-"))
        rows.append(jpegRow("  CPU time: cjpeg less its start (PPM read incl.)", j.cjpegCPUSeconds.count, j.cjpegBytes, cjpegCPU,
                            String(format: "%.2f", cjpegCPU / tripodCPU)))
        metrics["jpeg_cpu_ms"] = tripodCPU * 1000
        metrics["jpeg_cjpeg_cpu_less_start_ms"] = cjpegCPU * 1000
        metrics["jpeg_cpu_vs_cjpeg_cpu_less_start"] = cjpegCPU / tripodCPU
        metrics["jpeg_encode_ms"] = tripodJPEG * 1000
        metrics["jpeg_tjbench_ms"] = tjbench * 1000
        metrics["jpeg_cjpeg_ms"] = cjpeg * 1000
        metrics["jpeg_vs_tjbench"] = tjbench / tripodJPEG
        metrics["jpeg_vs_cjpeg"] = cjpeg / tripodJPEG
        metrics["jpeg_vs_cjpeg_less_start"] = (cjpeg - cjpegStart) / tripodJPEG

        // Five-frame 12 MP brackets on a store paced like an SD card, lossless against none.
        let cardRate = 40e6
        let chart = try renderChartFrame(iso: 100)
        var card: [DNGCompression: CardBracketMeasurement] = [:]
        for round in 0..<2 {
            for compression in round == 0 ? [DNGCompression.none, .lossless] : [.lossless, .none] {
                let c = try measureCardBrackets(chart, compression: compression, brackets: 1, framesPerBracket: 5,
                                                bytesPerSecond: cardRate, directory: directory)
                card[compression, default: CardBracketMeasurement(compression: compression)].bracketSeconds += c.bracketSeconds
                card[compression]?.bytesPerBracket = c.bytesPerBracket
                card[compression]?.pacedSecondsPerBracket = c.pacedSecondsPerBracket
            }
        }
        if let none = card[.none], let lossless = card[.lossless] {
            for c in [none, lossless] {
                let perBracket = c.bracketSeconds.reduce(0, +) / Double(c.bracketSeconds.count)
                rows.append(["5-frame bracket, 40 MB/s card, DNG \(c.compression.rawValue): \(String(format: "%.1f", c.bracketsPerMinute)) brackets/min",
                             "\(c.bracketSeconds.count * 5)", String(format: "%.1f", Double(c.bytesPerBracket) / 5e6),
                             String(format: "%.1f", Double(c.bytesPerBracket) / 1e6 / perBracket),
                             String(format: "%.2f", 5 / perBracket), String(format: "%.0f", perBracket * 1000 / 5),
                             c.compression == .lossless ? String(format: "%.2f", c.bracketsPerMinute / none.bracketsPerMinute) : "-"])
                metrics["card_brackets_per_minute_\(c.compression.rawValue)"] = c.bracketsPerMinute
                metrics["card_paced_seconds_per_bracket_\(c.compression.rawValue)"] = c.pacedSecondsPerBracket
            }
            metrics["card_lossless_vs_none"] = lossless.bracketsPerMinute / none.bracketsPerMinute
        }
        let writeNotes: [String] = [
                "\(m.size) (\(String(format: "%.1f", Double(m.size.area) / 1e6)) MP), SRGGB12 raw and BGR888 still, synthetic noisy gradient",
                "directory \(m.directory) (TRIPOD_BENCH_DIR to change); atomic write = temp, fsync, rename, fsync dir",
                "DNG rows: \(m.dngSeconds.count) frames; each frame times the streamed path (DNGWriter.write into PosixStorage.writeAtomically(to:streaming:): EXIF IFD, strips straight from the frame, preview rendered on another thread meanwhile, IFD0, preview SubIFD, fsync, rename, fsync dir; no SHA-256), the plain write of the file it wrote (read back untimed; when the reference goes first, the same bytes built in memory, which the tests check are identical; same directory; open, write, fsync, close) and the former path (whole file in memory, then writeAtomically), in an order that rotates frame by frame; median ms and speed vs reference are medians (reference median / this row's median)",
                "JPEG rows: the same \(m.size) noisy-gradient RGB frame written as a PPM for tjbench and cjpeg (\(j.tripodSeconds.count) interleaved rounds, each: 3 Tripod encodes, one tjbench of 0.3 s, 3 cjpeg runs, 3 `cjpeg -version`; the best round of each is shown, median ms = that round's time per frame; medians of the rounds: Tripod \(String(format: "%.1f", percentile(j.tripodSeconds, 50) * 1000)) ms, tjbench \(String(format: "%.1f", percentile(j.tjbenchSeconds, 50) * 1000)) ms); speed vs reference = reference time / Tripod's (≥ 1: Tripod as fast); all use libjpeg-turbo's defaults at q92 (4:2:0, islow DCT, no optimised Huffman)",
                "bracket rows: the ISO 100 chart frame (4608x2592, 11.9 MP) 5 times per bracket through CaptureStore/BracketRecorder (DNG encode, SHA-256, atomic write, sidecar after each frame; no JPEG), on PosixStorage behind a token bucket at \(String(format: "%.0f", cardRate / 1e6)) MB/s (PacedStorage, real sleeps); MB/frame = bytes charged to the card per frame; speed vs reference = lossless brackets/min ÷ uncompressed; \(card[.none].map { String(format: "%.2f", $0.pacedSecondsPerBracket) } ?? "-") s vs \(card[.lossless].map { String(format: "%.2f", $0.pacedSecondsPerBracket) } ?? "-") s a bracket waited for the card (none vs lossless)",
                "speed vs reference = reference time / this row's time for the same bytes; reference = the plain write for DNG/JPEG rows (1.00 = no overhead; encode cost included), the DNG atomic write for SHA-256 (above 1 = the checksum costs less than writing the file)",
        ]
        let writeMetrics: [String: Double] = [
                "dng_mb_per_s": m.megabytesPerSecond(m.dngBytesPerFrame, m.dngSeconds),
                "dng_plain_mb_per_s": m.megabytesPerSecond(m.dngBytesPerFrame, m.dngPlainSeconds),
                "dng_vs_plain": percentile(m.dngPlainSeconds, 50) / percentile(m.dngSeconds, 50),
                "dng_in_memory_vs_plain": percentile(m.dngPlainSeconds, 50) / percentile(m.dngInMemorySeconds, 50),
                "dng_median_ms": percentile(m.dngSeconds, 50) * 1000,
                "dng_plain_median_ms": percentile(m.dngPlainSeconds, 50) * 1000,
                "dng_commit_median_ms": percentile(m.dngCommitSeconds, 50) * 1000,
                "dng_atomic_write_vs_plain": percentile(m.dngPlainSeconds, 50) / percentile(m.dngAtomicWriteSeconds, 50),
                "jpeg_frames_per_s": Double(m.jpegSeconds.count) / m.jpegSeconds.reduce(0, +),
                "jpeg_vs_plain": m.jpegPlainSeconds.reduce(0, +) / m.jpegSeconds.reduce(0, +),
                "sha256_mb_per_s": m.megabytesPerSecond(m.dngBytesPerFrame, m.sha256Seconds),
                "dng_atomic_write_mb_per_s": m.megabytesPerSecond(m.dngBytesPerFrame, m.dngAtomicWriteSeconds),
                "sha256_vs_dng_atomic_write": m.dngAtomicWriteSeconds.reduce(0, +) / m.sha256Seconds.reduce(0, +),
        ]
        var notes = ["load average at the end (1, 5, 15 min): \(loadAverage()); this machine's 2 cores are shared with other builds, so CPU-bound rows (lossless encode, JPEG) slow down with the load while the card's pace does not"]
        notes += losslessNotes
        notes.append(losslessNote(cores: ProcessInfo.processInfo.activeProcessorCount))
        notes.append(contentsOf: writeNotes)
        return BenchmarkReport(
            columns: ["path", "frames", "MB/frame", "MB/s", "frames/s", "median ms", "speed vs reference"],
            rows: rows,
            notes: notes,
            metrics: metrics.merging(writeMetrics) { $1 })
    }
}

/// Per-frame wall times of each way of writing, in seconds.
struct MediaWriteMeasurement {
    var size: PixelSize
    var directory: String
    var dngBytesPerFrame: Int
    var jpegBytesPerFrame: Int
    /// The streamed path: encode and atomic write together (`DNGWriter.write` into the temp file).
    var dngSeconds: [Double] = []
    var dngPlainSeconds: [Double] = []
    /// The part of `dngSeconds` after the DNG's last write: fsync, close, rename, directory fsync.
    var dngCommitSeconds: [Double] = []
    /// The former path: the whole file built in memory (`DNGWriter.encode`), then `writeAtomically`.
    var dngInMemorySeconds: [Double] = []
    /// The atomic-write part of `dngInMemorySeconds` alone (temp, fsync, rename, directory fsync).
    var dngAtomicWriteSeconds: [Double] = []
    var jpegAtomicWriteSeconds: [Double] = []
    var jpegSeconds: [Double] = []
    var jpegPlainSeconds: [Double] = []
    var sha256Seconds: [Double] = []

    func megabytesPerSecond(_ bytesPerFrame: Int, _ seconds: [Double]) -> Double {
        Double(bytesPerFrame * seconds.count) / 1e6 / seconds.reduce(0, +)
    }
}

private func losslessNote(cores: Int) -> String {
    let what = "lossless rows: the simulated IMX708's 4608x2592 SRGGB10 frame of its chart (exposure for the chart's grey, gain = ISO/100)"
    let rate = "MB/s = raw MB in (2 B/sample) per second; encode on \(cores) cores (DispatchQueue.concurrentPerform over 256x256 tiles)"
    let scope = "tags and preview included, no write; speed vs reference = the uncompressed encode's time / the lossless encode's"
    return what + "; " + rate + ", " + scope + "; per core = raw MB / CPU seconds of all threads"
}

/// Sizes and encode times of one simulated chart frame as a lossless and an uncompressed DNG.
struct LosslessMeasurement {
    var rawBytes: Int
    var losslessBytes = 0, uncompressedBytes = 0
    var losslessWallSeconds: [Double] = [], losslessCPUSeconds: [Double] = [], uncompressedWallSeconds: [Double] = []
}

/// The simulated IMX708's full-size raw frame of its chart at one ISO, as the camera completed it.
struct ChartFrame {
    var sensor: SensorDescription
    var request: CompletedRequest
    var raw: FrameBuffer
    var size: PixelSize
    var exposureMicroseconds: Double
}

/// Renders the simulated IMX708's 4608x2592 SRGGB10 frame of its chart at `iso`: exposure for the
/// chart's grey by the meter equation, gain = ISO / 100 (so noise grows with ISO).
func renderChartFrame(iso: Int) throws -> ChartFrame {
    let sensor = try SensorDescription.embedded(model: "imx708")
    let loop = ManualEventLoop()
    let scene = SimulatedScene()
    let provider = SimulatedCameraProvider(loop: loop, sensor: sensor, scene: scene, seed: 5)
    guard let camera = try provider.open(id: provider.cameraID) as? SimulatedCamera else {
        throw HardwareError(.other, "media: the provider did not return a SimulatedCamera")
    }
    let size = PixelSize(width: 4608, height: 2592)
    _ = try camera.configure([StreamConfiguration(role: .raw, pixelFormat: PixelFormat("SRGGB10"), size: size)])
    let fNumber = sensor.lens?.fNumber ?? 1.8
    // L·t·S/N² = 12.5 (the reflected-light meter equation), L = the scene's grey luminance.
    let exposure = 12.5 * fNumber * fNumber / scene.greyLuminanceCandelasPerSquareMetre * 1e6 / Double(iso)
    let frames = RawFrames()
    camera.setEventHandler { if case .requestCompleted(let c) = $0, c.buffers[.raw] != nil { frames.list.append(c) } }
    try camera.start(controls: [ControlName.aeEnable: .bool(false), ControlName.exposureTime: .int32(Int32(exposure.rounded())),
                                ControlName.analogueGain: .float(Float(iso) / 100), ControlName.awbEnable: .bool(false),
                                ControlName.colourGains: .floatArray([2.0, 1.6])])
    try camera.queueRequest(CaptureRequest(cookie: 1, roles: [.raw]))
    while frames.list.isEmpty && loop.now().nanoseconds < 5_000_000_000 { loop.advance(by: .milliseconds(5)) }
    camera.stop()
    guard let request = frames.list.first, let raw = request.buffers[.raw] else {
        throw HardwareError(.other, "media: the simulated camera gave no raw frame")
    }
    return ChartFrame(sensor: sensor, request: request, raw: raw, size: size, exposureMicroseconds: exposure)
}

/// Encodes the chart frame at `iso` `frameCount` times each way (lossless, uncompressed).
func measureLosslessDNG(iso: Int, frameCount: Int) throws -> LosslessMeasurement {
    let chart = try renderChartFrame(iso: iso)
    let sensor = chart.sensor, size = chart.size, raw = chart.raw
    let settings = FrameSettings(exposureTimeMicroseconds: Int(chart.exposureMicroseconds), analogueGain: Double(iso) / 100,
                                 colourGains: ColourGains(red: 2.0, blue: 1.6))
    let exif = CaptureExif(camera: CameraIdentity(sensor: sensor, make: "Raspberry Pi"), settings: settings, captureDate: Date(),
                           timeZone: .current, size: size)
    let description = DNGDescription(exif: exif, blackLevel: Double((sensor.blackLevel16 ?? 4096) >> 6))
    var m = LosslessMeasurement(rawBytes: size.area * 2)
    for _ in 0..<frameCount {
        var bytes: [UInt8] = []
        let cpu = processCPUNanoseconds()
        m.losslessWallSeconds.append(try timed { bytes = try DNGWriter.encode(raw, description: description, compression: .lossless) })
        m.losslessCPUSeconds.append(Double(processCPUNanoseconds() - cpu) / 1e9)
        m.losslessBytes = bytes.count
        m.uncompressedWallSeconds.append(try timed { bytes = try DNGWriter.encode(raw, description: description, compression: .none) })
        m.uncompressedBytes = bytes.count
    }
    return m
}

private final class RawFrames: @unchecked Sendable {
    var list: [CompletedRequest] = []
}

/// CPU time of every thread of this process (CLOCK_PROCESS_CPUTIME_ID), nanoseconds.
private func processCPUNanoseconds() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}

/// Measures `frameCount` DNG and JPEG writes of `size` through `DNGWriter`/`JPEGWriter` and
/// `PosixStorage.writeAtomically` (the DNG streamed, and the former way, whole in memory first),
/// each frame also as a plain open/write/fsync/close of the same bytes, interleaved so all see
/// the same disk state. Files are removed as it goes.
/// (The bracket benchmark calls this too.)
func measureMediaWrites(frameCount: Int, size: PixelSize, directory: String,
                        compression: DNGCompression = .none) throws -> MediaWriteMeasurement {
    let scratch = directory + "/run-\(getpid())"
    let storage = try PosixStorage(root: scratch)
    defer { try? FileManager.default.removeItem(atPath: scratch) }
    let raw = syntheticFrame(.srggb12, size: size, bytesPerPixel: 2)
    let rgb = syntheticFrame(.bgr888, size: size, bytesPerPixel: 3)
    let settings = FrameSettings(exposureTimeMicroseconds: 10_000, analogueGain: 2, colourGains: ColourGains(red: 1.9, blue: 1.5))
    let camera = CameraIdentity(make: "Raspberry Pi", model: "HQ Camera (imx477)", uniqueCameraModel: "Raspberry Pi imx477")
    let exif = CaptureExif(camera: camera, settings: settings, captureDate: Date(), timeZone: .current, size: size)
    var m = MediaWriteMeasurement(size: size, directory: directory, dngBytesPerFrame: 0, jpegBytesPerFrame: 0)
    let description = DNGDescription(exif: exif, blackLevel: 256)
    for i in 0..<frameCount {
        var streamed = 0.0, plain = 0.0, inMemory = 0.0, write = 0.0
        var dng: [UInt8] = []
        func ours() throws {
            var lastWrite: Int64 = 0
            streamed = try timed {
                _ = try storage.writeAtomically(to: "f\(i).dng") { stream in
                    defer { lastWrite = monotonicNanoseconds() }
                    return try DNGWriter.write(raw, description: description, compression: compression, to: stream)
                }
            }
            m.dngCommitSeconds.append(Double(monotonicNanoseconds() - lastWrite) / 1e9)
            dng = try storage.read("f\(i).dng")  // the bytes it wrote, for the reference (untimed)
        }
        func reference() throws {
            if dng.isEmpty { dng = try DNGWriter.encode(raw, description: description, compression: compression) }
            plain = try timed { try plainWrite(dng, to: scratch + "/plain\(i).dng") }
        }
        func former() throws {
            var bytes: [UInt8] = []
            let encode = try timed { bytes = try DNGWriter.encode(raw, description: description, compression: compression) }
            write = try timed { try storage.writeAtomically(bytes, to: "g\(i).dng") }
            inMemory = encode + write
        }
        // Each goes first, second and third in turn: none always follows the same one.
        let order: [() throws -> Void] = [ours, reference, former]
        for k in 0..<3 { try order[(i + k) % 3]() }
        m.dngSeconds.append(streamed)
        m.dngPlainSeconds.append(plain)
        m.dngInMemorySeconds.append(inMemory)
        m.dngAtomicWriteSeconds.append(write)
        m.sha256Seconds.append(try timed { _ = try SHA256.hexDigest(dng) })
        for name in ["f\(i).dng", "g\(i).dng"] { try storage.remove(name) }
        try? FileManager.default.removeItem(atPath: scratch + "/plain\(i).dng")
        var jpeg: [UInt8] = []
        let jpegEncode = try timed { jpeg = try JPEGWriter.encode(rgb, exif: exif, quality: 92) }
        let jpegWrite = try timed { try storage.writeAtomically(jpeg, to: "f\(i).jpg") }
        m.jpegSeconds.append(jpegEncode + jpegWrite)
        m.jpegAtomicWriteSeconds.append(jpegWrite)
        m.jpegPlainSeconds.append(try timed { try plainWrite(jpeg, to: scratch + "/plain\(i).jpg") })
        m.dngBytesPerFrame = dng.count
        m.jpegBytesPerFrame = jpeg.count
    }
    return m
}

func timed(_ body: () throws -> Void) throws -> Double {
    let start = monotonicNanoseconds()
    try body()
    return Double(monotonicNanoseconds() - start) / 1e9
}

/// The reference: open, write everything, fsync, close. No temp file, no rename, no directory sync.
private func plainWrite(_ bytes: [UInt8], to path: String) throws {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw HardwareError(.io, "open \(path): errno \(errno)", errno: errno) }
    defer { close(fd) }
    try bytes.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let n = write(fd, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw HardwareError(.io, "write \(path): errno \(errno)", errno: errno) }
            offset += n
        }
    }
    guard fsync(fd) == 0 else { throw HardwareError(.io, "fsync \(path): errno \(errno)", errno: errno) }
}

/// A gradient with pseudo-random noise (so JPEG sizes are realistic), 12-bit for raw.
func syntheticFrame(_ format: PixelFormat, size: PixelSize, bytesPerPixel: Int) -> FrameBuffer {
    var bytes = [UInt8](repeating: 0, count: size.area * bytesPerPixel)
    var state: UInt32 = 0x1234_5678
    for y in 0..<size.height {
        for x in 0..<size.width {
            state = state &* 1_664_525 &+ 1_013_904_223
            let noise = Int(state >> 27)  // 0...31
            let i = (y * size.width + x) * bytesPerPixel
            if bytesPerPixel == 2 {
                let v = UInt16(min(4095, (x * 4095) / size.width / 2 + (y * 2047) / size.height + noise * 4))
                bytes[i] = UInt8(v & 0xFF); bytes[i + 1] = UInt8(v >> 8)
            } else {
                bytes[i] = UInt8((x * 255) / size.width)
                bytes[i + 1] = UInt8(min(255, (y * 255) / size.height + noise))
                bytes[i + 2] = UInt8(noise * 4)
            }
        }
    }
    return FrameBuffer(pixelFormat: format, size: size, stride: size.width * bytesPerPixel, bytes: bytes)
}

/// /proc/loadavg's first three fields.
func loadAverage() -> String {
    guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return "unknown" }
    return text.split(separator: " ").prefix(3).joined(separator: " ")
}

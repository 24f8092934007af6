import Foundation
import Glibc
import Hardware
import Transports
import Syscalls
import LinuxHardware
import Media

/// DNG and JPEG writing at 12 MP against a plain write+fsync of the same bytes, same run.
struct MediaBenchmark: Benchmark {
    static let name = "media"
    static let summary = "DNG/JPEG encode + atomic write at 12 MP vs plain write+fsync of the same bytes"

    func run() throws -> BenchmarkReport {
        let directory = ProcessInfo.processInfo.environment["TRIPOD_BENCH_DIR"] ?? ".bench/media-scratch"
        let m = try measureMediaWrites(frameCount: 5, size: PixelSize(width: 4056, height: 3040), directory: directory)
        func row(_ name: String, _ bytes: Int, _ seconds: [Double], _ reference: [Double]?) -> [String] {
            let total = seconds.reduce(0, +)
            let ratio = reference.map { String(format: "%.2f", $0.reduce(0, +) / total) } ?? "-"
            return [name, "\(seconds.count)", String(format: "%.1f", Double(bytes) / 1e6),
                    String(format: "%.1f", Double(bytes * seconds.count) / 1e6 / total),
                    String(format: "%.2f", Double(seconds.count) / total),
                    String(format: "%.1f", percentile(seconds.map { $0 * 1000 }, 50)), ratio]
        }
        return BenchmarkReport(
            columns: ["path", "frames", "MB/frame", "MB/s", "frames/s", "median ms", "speed vs reference"],
            rows: [
                row("DNG: libtiff encode + atomic write", m.dngBytesPerFrame, m.dngSeconds, m.dngPlainSeconds),
                row("  of which atomic write", m.dngBytesPerFrame, m.dngAtomicWriteSeconds, m.dngPlainSeconds),
                row("DNG bytes: plain write+fsync", m.dngBytesPerFrame, m.dngPlainSeconds, nil),
                row("JPEG q92: libjpeg encode + EXIF + atomic write", m.jpegBytesPerFrame, m.jpegSeconds, m.jpegPlainSeconds),
                row("  of which atomic write", m.jpegBytesPerFrame, m.jpegAtomicWriteSeconds, m.jpegPlainSeconds),
                row("JPEG bytes: plain write+fsync", m.jpegBytesPerFrame, m.jpegPlainSeconds, nil),
                row("SHA-256 of the DNG: libcrypto (sidecar checksum)", m.dngBytesPerFrame, m.sha256Seconds, m.dngAtomicWriteSeconds),
            ],
            notes: [
                "\(m.size) (\(String(format: "%.1f", Double(m.size.area) / 1e6)) MP), SRGGB12 raw and BGR888 still, synthetic noisy gradient",
                "directory \(m.directory) (TRIPOD_BENCH_DIR to change); atomic write = temp, fsync, rename, fsync dir",
                "speed vs reference = reference time / this row's time for the same bytes; reference = the plain write for DNG/JPEG rows (1.00 = no overhead; encode cost included), the DNG atomic write for SHA-256 (above 1 = the checksum costs less than writing the file)",
            ],
            metrics: [
                "dng_mb_per_s": m.megabytesPerSecond(m.dngBytesPerFrame, m.dngSeconds),
                "dng_plain_mb_per_s": m.megabytesPerSecond(m.dngBytesPerFrame, m.dngPlainSeconds),
                "dng_vs_plain": m.dngPlainSeconds.reduce(0, +) / m.dngSeconds.reduce(0, +),
                "dng_atomic_write_vs_plain": m.dngPlainSeconds.reduce(0, +) / m.dngAtomicWriteSeconds.reduce(0, +),
                "jpeg_frames_per_s": Double(m.jpegSeconds.count) / m.jpegSeconds.reduce(0, +),
                "jpeg_vs_plain": m.jpegPlainSeconds.reduce(0, +) / m.jpegSeconds.reduce(0, +),
                "sha256_mb_per_s": m.megabytesPerSecond(m.dngBytesPerFrame, m.sha256Seconds),
                "dng_atomic_write_mb_per_s": m.megabytesPerSecond(m.dngBytesPerFrame, m.dngAtomicWriteSeconds),
                "sha256_vs_dng_atomic_write": m.dngAtomicWriteSeconds.reduce(0, +) / m.sha256Seconds.reduce(0, +),
            ])
    }
}

/// Per-frame wall times of each way of writing, in seconds.
struct MediaWriteMeasurement {
    var size: PixelSize
    var directory: String
    var dngBytesPerFrame: Int
    var jpegBytesPerFrame: Int
    var dngSeconds: [Double] = []
    var dngPlainSeconds: [Double] = []
    /// The atomic-write part of `dngSeconds` alone (temp, fsync, rename, directory fsync).
    var dngAtomicWriteSeconds: [Double] = []
    var jpegAtomicWriteSeconds: [Double] = []
    var jpegSeconds: [Double] = []
    var jpegPlainSeconds: [Double] = []
    var sha256Seconds: [Double] = []

    func megabytesPerSecond(_ bytesPerFrame: Int, _ seconds: [Double]) -> Double {
        Double(bytesPerFrame * seconds.count) / 1e6 / seconds.reduce(0, +)
    }
}

/// Measures `frameCount` DNG and JPEG writes of `size` through `DNGWriter`/`JPEGWriter` and
/// `PosixStorage.writeAtomically`, each followed by a plain open/write/fsync/close of the same
/// bytes, interleaved so both see the same disk state. Files are removed afterwards.
/// (The bracket benchmark calls this too.)
func measureMediaWrites(frameCount: Int, size: PixelSize, directory: String) throws -> MediaWriteMeasurement {
    let scratch = directory + "/run-\(getpid())"
    let storage = try PosixStorage(root: scratch)
    defer { try? FileManager.default.removeItem(atPath: scratch) }
    let raw = syntheticFrame(.srggb12, size: size, bytesPerPixel: 2)
    let rgb = syntheticFrame(.bgr888, size: size, bytesPerPixel: 3)
    let settings = FrameSettings(exposureTimeMicroseconds: 10_000, analogueGain: 2, colourGains: ColourGains(red: 1.9, blue: 1.5))
    let camera = CameraIdentity(make: "Raspberry Pi", model: "HQ Camera (imx477)", uniqueCameraModel: "Raspberry Pi imx477")
    let exif = CaptureExif(camera: camera, settings: settings, captureDate: Date(), timeZone: .current, size: size)
    var m = MediaWriteMeasurement(size: size, directory: directory, dngBytesPerFrame: 0, jpegBytesPerFrame: 0)
    for i in 0..<frameCount {
        var dng: [UInt8] = []
        let dngEncode = try timed { dng = try DNGWriter.encode(raw, description: DNGDescription(exif: exif, blackLevel: 256)) }
        let dngWrite = try timed { try storage.writeAtomically(dng, to: "f\(i).dng") }
        m.dngSeconds.append(dngEncode + dngWrite)
        m.dngAtomicWriteSeconds.append(dngWrite)
        m.dngPlainSeconds.append(try timed { try plainWrite(dng, to: scratch + "/plain\(i).dng") })
        m.sha256Seconds.append(try timed { _ = try SHA256.hexDigest(dng) })
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

private func timed(_ body: () throws -> Void) throws -> Double {
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
private func syntheticFrame(_ format: PixelFormat, size: PixelSize, bytesPerPixel: Int) -> FrameBuffer {
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

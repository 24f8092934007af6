import Foundation
import Glibc
import Hardware
import Media
import TestSupport

/// Tripod's JPEG q92 encode of one RGB frame against libjpeg-turbo's own tools on the same pixels.
struct JPEGReferenceMeasurement {
    var size: PixelSize
    /// `JPEGWriter.encode` (EXIF included, no write), seconds per frame: the mean of 3 encodes per round.
    var tripodSeconds: [Double] = []
    var tripodBytes = 0
    /// `tjbench FILE.ppm 92 -rgb -subsamp 420 -componly`: its compression rate, as seconds per frame
    /// (in-process, no file I/O, no process start; its mean over 0.3 s per round).
    var tjbenchSeconds: [Double] = []
    /// `cjpeg -quality 92 FILE.ppm`, one process per frame: wall seconds each, process start and the
    /// PPM read included; `cjpegStartSeconds` is one `cjpeg -version` (the start alone); means of 3 per round.
    var cjpegSeconds: [Double] = []
    var cjpegStartSeconds: [Double] = []
    var cjpegBytes = 0
    /// CPU seconds, which the machine's load changes far less than wall time: Tripod's encoding
    /// thread (CLOCK_THREAD_CPUTIME_ID) per encode; cjpeg's user+sys (RUSAGE_CHILDREN) per run and
    /// per `cjpeg -version`. Means of 3 per round.
    var tripodCPUSeconds: [Double] = []
    var cjpegCPUSeconds: [Double] = []
    var cjpegStartCPUSeconds: [Double] = []
}

/// Writes `rgb` (`.bgr888`: memory R,G,B) as a binary PPM and times Tripod's encode, tjbench and
/// cjpeg on it, interleaved over `rounds` so both see the same machine load.
func measureJPEGReference(_ rgb: FrameBuffer, rounds: Int, directory: String) throws -> JPEGReferenceMeasurement {
    let scratch = directory + "/jpeg-\(getpid())"
    try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: scratch) }
    let ppm = scratch + "/frame.ppm", cjpegOut = scratch + "/cjpeg.jpg"
    try writePPM(rgb, to: ppm)
    let camera = CameraIdentity(make: "Raspberry Pi", model: "HQ Camera (imx477)", uniqueCameraModel: "Raspberry Pi imx477")
    let exif = CaptureExif(camera: camera, settings: nil, captureDate: Date(), timeZone: .current, size: rgb.size)
    var m = JPEGReferenceMeasurement(size: rgb.size)
    _ = try JPEGWriter.encode(rgb, exif: exif, quality: 92)  // warm: first-touch of libjpeg's tables
    for _ in 0..<rounds {
        var jpeg: [UInt8] = []
        var cpu = threadCPUSeconds()
        m.tripodSeconds.append(try timed { for _ in 0..<3 { jpeg = try JPEGWriter.encode(rgb, exif: exif, quality: 92) } } / 3)
        m.tripodCPUSeconds.append((threadCPUSeconds() - cpu) / 3)
        m.tripodBytes = jpeg.count
        let output = try run("/usr/bin/tjbench", [ppm, "92", "-rgb", "-subsamp", "420", "-componly", "-nowrite", "-quiet",
                                                  "-benchtime", "0.3", "-warmup", "0.05"])
        m.tjbenchSeconds.append(Double(rgb.size.area) / 1e6 / (try tjbenchMegapixelsPerSecond(output)))
        cpu = childrenCPUSeconds()
        m.cjpegSeconds.append(try timed { for _ in 0..<3 { _ = try run("/usr/bin/cjpeg", ["-quality", "92", "-outfile", cjpegOut, ppm]) } } / 3)
        m.cjpegCPUSeconds.append((childrenCPUSeconds() - cpu) / 3)
        cpu = childrenCPUSeconds()
        m.cjpegStartSeconds.append(try timed { for _ in 0..<3 { _ = try run("/usr/bin/cjpeg", ["-version"]) } } / 3)
        m.cjpegStartCPUSeconds.append((childrenCPUSeconds() - cpu) / 3)
        m.cjpegBytes = Int((try FileManager.default.attributesOfItem(atPath: cjpegOut)[.size] as? NSNumber)?.intValue ?? 0)
    }
    return m
}

/// P6 with maxval 255: the frame's R,G,B rows without stride padding.
private func writePPM(_ frame: FrameBuffer, to path: String) throws {
    guard frame.pixelFormat == .bgr888 else {
        throw HardwareError(.invalidArgument, "PPM: only BGR888 (memory R,G,B) frames, not \(frame.pixelFormat)")
    }
    var bytes = Array("P6\n\(frame.size.width) \(frame.size.height)\n255\n".utf8)
    frame.withUnsafeBytes { pixels in
        for y in 0..<frame.size.height {
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: pixels[(y * frame.stride)..<(y * frame.stride + frame.size.width * 3)]))
        }
    }
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
        throw HardwareError(.io, "cannot write \(path)")
    }
}

/// The "Comp Perf" column (Mpixels/s) of tjbench's `-quiet` table row for the RGB 4:2:0 test.
private func tjbenchMegapixelsPerSecond(_ output: String) throws -> Double {
    // Row: "RGB  (TD)  4:2:0    92    4056   3040    34.23   3.090   N/A"
    for line in output.split(separator: "\n") where line.hasPrefix("RGB") {
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        if fields.count >= 7, let rate = Double(fields[6]), rate > 0 { return rate }
    }
    throw HardwareError(.other, "tjbench: no RGB 4:2:0 result in its output:\n\(output)")
}

/// Runs `path` with `arguments`, returns its standard output; a non-zero exit is an error.
private func run(_ path: String, _ arguments: [String]) throws -> String {
    let result: (status: Int32, output: Data)
    do { result = try runProcess(path, arguments) } catch {
        throw HardwareError(.notFound, "\(path): cannot run (\(error)); tools/setup installs libjpeg-turbo-progs")
    }
    guard result.status == 0 else {
        throw HardwareError(.other, "\(path) \(arguments.joined(separator: " ")) exited with \(result.status)")
    }
    return String(decoding: result.output, as: UTF8.self)
}

/// CPU seconds of the calling thread (CLOCK_THREAD_CPUTIME_ID).
private func threadCPUSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// User + system CPU seconds of this process's waited-for children (RUSAGE_CHILDREN).
private func childrenCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_CHILDREN.rawValue, &usage)
    func s(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return s(usage.ru_utime) + s(usage.ru_stime)
}

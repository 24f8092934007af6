import Foundation
import Hardware
@testable import Media

/// A synthetic Bayer frame: a horizontal ramp with a gradient, values within `bits`.
func makeRawFrame(width: Int = 64, height: Int = 48, format: PixelFormat = .srggb12, bits: Int = 12,
                  paddingBytes: Int = 0) -> FrameBuffer {
    let stride = width * 2 + paddingBytes
    var bytes = [UInt8](repeating: 0, count: stride * height)
    let maximum = (1 << bits) - 1
    for y in 0..<height {
        for x in 0..<width {
            let v = UInt16((x * maximum / max(width - 1, 1) + y) % (maximum + 1))
            bytes[y * stride + 2 * x] = UInt8(v & 0xFF)
            bytes[y * stride + 2 * x + 1] = UInt8(v >> 8)
        }
    }
    return FrameBuffer(pixelFormat: format, size: PixelSize(width: width, height: height), stride: stride, bytes: bytes)
}

/// A synthetic RGB frame: red ramps left to right, green top to bottom, blue constant.
func makeRGBFrame(width: Int = 64, height: Int = 48, format: PixelFormat = .bgr888) -> FrameBuffer {
    var bytes = [UInt8](repeating: 0, count: width * height * 3)
    for y in 0..<height {
        for x in 0..<width {
            let i = (y * width + x) * 3
            let r = UInt8(x * 255 / max(width - 1, 1)), g = UInt8(y * 255 / max(height - 1, 1)), b: UInt8 = 64
            if format == .bgr888 { bytes[i] = r; bytes[i + 1] = g; bytes[i + 2] = b } else { bytes[i] = b; bytes[i + 1] = g; bytes[i + 2] = r }
        }
    }
    return FrameBuffer(pixelFormat: format, size: PixelSize(width: width, height: height), stride: width * 3, bytes: bytes)
}

let testCamera = CameraIdentity(make: "Raspberry Pi", model: "Camera Module 3 (imx708)",
                                uniqueCameraModel: "Raspberry Pi imx708", focalLengthMillimetres: 4.74, fNumber: 1.8)

func testExif(size: PixelSize, exposureMicroseconds: Int = 10_000, gain: Double = 4, lens: Double? = 2.5) -> CaptureExif {
    CaptureExif(camera: testCamera,
                settings: FrameSettings(exposureTimeMicroseconds: exposureMicroseconds, analogueGain: gain,
                                        colourGains: ColourGains(red: 2.0, blue: 1.6), lensPositionDioptres: lens),
                captureDate: Date(timeIntervalSince1970: 1_790_000_000), timeZone: TimeZone(identifier: "UTC") ?? .current,
                size: size)
}

/// A fresh directory under the system temporary directory.
func makeTemporaryDirectory() throws -> String {
    let path = NSTemporaryDirectory() + "tripod-media-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

struct ToolError: Error, CustomStringConvertible {
    var description: String
}

/// Runs an external tool installed by tools/setup; a missing tool is a clear failure, not a skip.
func runTool(_ name: String, _ arguments: [String]) throws -> (status: Int32, stdout: Data, stderr: String) {
    guard let path = ["/usr/bin/", "/usr/local/bin/", "/bin/"].map({ $0 + name })
        .first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
        throw ToolError(description: "\(name) is not installed: run tools/setup (it installs exiftool, dcraw, libtiff-tools, libjpeg-turbo-progs, darktable)")
    }
    return try runExecutable(path, arguments)
}

/// Runs the executable at `path`, collecting its output.
func runExecutable(_ path: String, _ arguments: [String]) throws -> (status: Int32, stdout: Data, stderr: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, stdout, String(decoding: stderr, as: UTF8.self))
}

/// exiftool's numeric JSON view of one file (-n: numbers, not prettified strings).
func exiftoolJSON(_ file: String) throws -> [String: Any] {
    let result = try runTool("exiftool", ["-j", "-n", "-G0", file])
    guard result.status == 0, let array = try JSONSerialization.jsonObject(with: result.stdout) as? [[String: Any]],
          let first = array.first else {
        throw ToolError(description: "exiftool failed on \(file): \(result.stderr)")
    }
    return first
}

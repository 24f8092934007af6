import Foundation

/// A tool a test needs is missing or failed.
public struct ToolError: Error, CustomStringConvertible {
    public var description: String
    public init(description: String) { self.description = description }
}

/// What ffprobe reads from a video file (decoding every frame).
public struct Probe {
    public var codec: String
    public var width: Int
    public var height: Int
    public var timeBase: String
    /// Every decoded frame's PTS, in the stream's time base, in presentation order.
    public var framePTS: [Int64]
}

/// Runs `executable` with `arguments` (standard error discarded) and waits for it: its exit status
/// and standard output. Throws only when it cannot be started.
public func runProcess(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: Data) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, data)
}

/// Runs a tool installed by tools/setup and returns its standard output; a missing tool or a
/// failure is an error (never a skip).
public func runTool(_ executable: String, _ arguments: [String]) throws -> Data {
    guard FileManager.default.isExecutableFile(atPath: executable) else {
        throw ToolError(description: "\(executable) is not installed: run tools/setup")
    }
    let (status, output) = try runProcess(executable, arguments)
    guard status == 0 else {
        throw ToolError(description: "\((executable as NSString).lastPathComponent) \(arguments.joined(separator: " ")): status \(status)")
    }
    return output
}

/// Runs ffprobe (package ffmpeg) on a video, decoding every frame.
public func probe(_ file: String) throws -> Probe {
    let data = try runTool("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0",
                                                "-show_entries", "stream=codec_name,width,height,time_base:frame=pts", "-of", "json", file])
    guard let json = try JSONSerialization.jsonObject(with: data) as? [String: Any],
          let stream = (json["streams"] as? [[String: Any]])?.first else {
        throw ToolError(description: "ffprobe could not read \(file)")
    }
    let frames = (json["frames"] as? [[String: Any]]) ?? []
    return Probe(codec: stream["codec_name"] as? String ?? "", width: stream["width"] as? Int ?? 0,
                 height: stream["height"] as? Int ?? 0, timeBase: stream["time_base"] as? String ?? "",
                 framePTS: frames.compactMap { ($0["pts"] as? NSNumber)?.int64Value })
}

/// The first decoded frame of a video as planar YUV 4:2:0 bytes (ffmpeg).
public func firstFrameYUV420(_ file: String) throws -> [UInt8] {
    [UInt8](try runTool("/usr/bin/ffmpeg", ["-v", "error", "-i", file, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"]))
}

/// An image's pixel size as exiftool (package libimage-exiftool-perl) reads it: the JPEG's frame,
/// the DNG's full-resolution raw image.
public func imageSize(_ file: String) throws -> (width: Int, height: Int) {
    let text = String(decoding: try runTool("/usr/bin/exiftool", ["-s3", "-ImageSize", file]), as: UTF8.self)
    let sides = text.split { $0 == "x" || $0 == " " || $0 == "\n" }.compactMap { Int($0) }
    guard sides.count == 2 else { throw ToolError(description: "exiftool gave no image size for \(file): \(text)") }
    return (sides[0], sides[1])
}

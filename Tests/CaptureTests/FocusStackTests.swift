import Foundation
import Hardware
import Media
import SimulatedHardware
import TestSupport
import Testing
@testable import Supervisor

/// A focus stack of `sim scene depth`, fused by enfuse (Debian's enblend-enfuse, from tools/setup)
/// the way focus stackers use it: contrast alone decides, each pixel from one frame.
@Suite struct FocusStackTests {
    @Test func enfuseFusesTheStackSharperThanTheWorstFrameInEveryStripAndCloseToTheBest() throws {
        let rig = try CaptureRig(renderSize: PixelSize(width: 640, height: 360), scene: SimulatedScene(hasDepth: true))
        #expect(rig.send("set capture.format jpeg").contains { $0.hasPrefix("ok") })
        // A format that sees the whole chart (the default 120 fps mode is a centre crop), so the
        // sixths of the frame are the scene's strips.
        #expect(rig.send("set format 1920x1080@30").contains { $0.hasPrefix("ok") })
        rig.send("bracket focus 0.15m inf")
        let lines = rig.settle(until: { $0.event("bracket.done") != nil || $0.event("bracket.failed") != nil }, limit: .seconds(30))
        #expect(lines.event("bracket.done") != nil, "\(lines)")
        let sidecar = try #require(try rig.sidecars().first)
        let frames = sidecar.frames.sorted { $0.index < $1.index }
        #expect(frames.count >= 20)  // 6.67 D in steps of at most 0.3 D
        #expect(frames.allSatisfy { $0.scalerCrop == PixelRect(x: 0, y: 0, width: 4608, height: 2592) })

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tripod-focus-stack-\(getpid())")
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var paths: [String] = []
        for frame in frames {
            let name = try #require(frame.files.first { $0.kind == .jpeg }?.name)
            let path = directory.appendingPathComponent(name).path
            try Data(try #require(rig.storage.files["\(sidecar.folder)/\(name)"])).write(to: URL(fileURLWithPath: path))
            paths.append(path)
        }
        let fused = directory.appendingPathComponent("fused.jpg").path
        _ = try runTool("/usr/bin/enfuse", ["--exposure-weight=0", "--saturation-weight=0", "--contrast-weight=1", "--hard-mask",
                                            "--compression=95", "--output=\(fused)"] + paths)

        let perFrame = try paths.map { try stripSharpness(decodedJPEG($0)) }
        let stack = try stripSharpness(decodedJPEG(fused))
        // Measured (640x360, 24 frames): the fused strips are 1.01 to 1.04 times the best frame's
        // sharpness and 17 to 108 times the worst's.
        for strip in stack.indices {
            let column = perFrame.map { $0[strip] }
            let worst = column.min() ?? 0, best = column.max() ?? 0
            #expect(best > 2 * worst, "strip \(strip): the stack spans its focus (best \(best), worst \(worst))")
            #expect(stack[strip] > 10 * worst, "strip \(strip): fused \(stack[strip]), worst \(worst)")
            #expect(stack[strip] > 0.9 * best, "strip \(strip): fused \(stack[strip]), best \(best)")
        }
    }
}

/// An RGB image: width, height, 3 bytes a pixel.
struct RGBImage {
    var width: Int
    var height: Int
    var pixels: [UInt8]
}

/// A JPEG decoded by djpeg (libjpeg-turbo-progs) into binary PPM.
func decodedJPEG(_ path: String) throws -> RGBImage {
    let ppm = [UInt8](try runTool("/usr/bin/djpeg", ["-pnm", path]))
    // "P6 <width> <height> <maxval>" and one whitespace byte, then the samples.
    var fields: [Int] = [], index = 2, number = ""
    while fields.count < 3, index < ppm.count {
        let c = ppm[index]
        if c >= 0x30 && c <= 0x39 { number.append(Character(UnicodeScalar(c))) } else if !number.isEmpty {
            fields.append(Int(number) ?? 0); number = ""
        }
        index += 1
    }
    guard ppm.starts(with: Array("P6".utf8)), fields.count == 3, fields[2] == 255,
          ppm.count - index == fields[0] * fields[1] * 3 else { throw ToolError(description: "djpeg gave no 8-bit PPM for \(path)") }
    return RGBImage(width: fields[0], height: fields[1], pixels: Array(ppm[index...]))
}

/// Sharpness of each `sim scene depth` strip, left to right (TestSupport's `stripSharpness`).
func stripSharpness(_ image: RGBImage) -> [Double] {
    stripSharpness(width: image.width, height: image.height, strips: SimulatedScene.depthStripDistancesMetres.count, margin: 12) { x, y in
        Double(image.pixels[(y * image.width + x) * 3 + 1])
    }
}

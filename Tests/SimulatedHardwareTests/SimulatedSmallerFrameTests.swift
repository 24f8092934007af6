import Boards
import Hardware
import ManualLoop
import SimulatedHardware
import Testing

/// A processed frame's smaller drawing (`FrameBuffer.smaller`, what the browser remote's preview
/// reads): the same frame, drawn on its own, leaving the whole frame undrawn.
@Suite struct SimulatedSmallerFrameTests {
    final class Log: @unchecked Sendable { var completed: [CompletedRequest] = [] }

    /// Three frames of a 1920x1080 viewfinder stream beside a raw and a video stream, none read yet.
    static func frames() throws -> [CompletedRequest] {
        let loop = ManualEventLoop()
        let provider = SimulatedCameraProvider(loop: loop, sensor: try SensorDescription.embedded(model: "imx708"), seed: 3)
        let camera = try #require(try provider.open(id: provider.cameraID) as? SimulatedCamera)
        let log = Log()
        camera.setEventHandler { if case .requestCompleted(let c) = $0 { log.completed.append(c) } }
        let size = PixelSize(width: 1920, height: 1080)
        _ = try camera.configure([StreamConfiguration(role: .viewfinder, pixelFormat: .xrgb8888, size: size),
                                  StreamConfiguration(role: .raw, pixelFormat: PixelFormat("SRGGB10"), size: PixelSize(width: 2304, height: 1296)),
                                  StreamConfiguration(role: .videoRecording, pixelFormat: .yuv420, size: size)])
        try camera.start(controls: [:])
        for cookie in 1...3 { try camera.queueRequest(CaptureRequest(cookie: UInt64(cookie), roles: [.viewfinder, .raw, .videoRecording])) }
        loop.advance(by: .seconds(1))
        camera.stop()
        return log.completed.filter(\.isComplete)
    }

    /// Channel `shift` (16 red, 8 green, 0 blue) of an XRGB8888 frame, averaged over `block` x `block` squares.
    static func blockMeans(_ frame: FrameBuffer, block: Int, shift: UInt32) -> [Double] {
        let w = frame.size.width / block, h = frame.size.height / block
        return frame.withUnsafeBytes { bytes in
            let pixels = bytes.bindMemory(to: UInt32.self)
            let rowWords = frame.stride / 4
            var means = [Double](repeating: 0, count: w * h)
            for by in 0..<h {
                for bx in 0..<w {
                    var sum = 0.0
                    for y in by * block..<(by + 1) * block {
                        for x in bx * block..<(bx + 1) * block { sum += Double((pixels[y * rowWords + x] >> shift) & 0xFF) }
                    }
                    means[by * w + bx] = sum / Double(block * block)
                }
            }
            return means
        }
    }

    @Test func onlyTheProcessedFrameHasASmallerDrawing640Wide() throws {
        let frames = try Self.frames()
        #expect(frames.count == 3)
        for frame in frames {
            let viewfinder = try #require(frame.buffers[.viewfinder])
            let smaller = try #require(viewfinder.smaller)
            #expect(smaller.size == PixelSize(width: FrameBuffer.smallerWidth, height: 360))
            #expect(smaller.pixelFormat == viewfinder.pixelFormat)
            #expect(frame.buffers[.raw]?.smaller == nil)
            #expect(frame.buffers[.videoRecording]?.smaller == nil)
        }
    }

    @Test func theSmallerDrawingIsTheSameFrameAndLeavesTheWholeOneUndrawn() throws {
        let frames = try Self.frames()
        for frame in frames {
            let whole = try #require(frame.buffers[.viewfinder])
            let smaller = try #require(whole.smaller)
            _ = smaller.withUnsafeBytes { $0.count }
            #expect(smaller.isRendered)
            #expect(!whole.isRendered, "reading the smaller drawing must not draw the whole frame")
            // The whole frame averaged over 9x9 squares and the smaller drawing over 3x3 (the same
            // part of the picture): the chart, the exposure and the white balance agree; what differs
            // is noise and how an edge falls on the pixel grid (0.7-0.9 % of the level here, while
            // AE moves the level 1-2 % from one of these frames to the next).
            for shift: UInt32 in [16, 8, 0] {
                let big = Self.blockMeans(whole, block: 9, shift: shift)
                let small = Self.blockMeans(smaller, block: 3, shift: shift)
                #expect(big.count == small.count)
                let difference = zip(big, small).map { abs($0 - $1) }.reduce(0, +) / Double(big.count)
                let level = big.reduce(0, +) / Double(big.count)
                #expect(difference < 0.015 * level, "channel \(shift): mean |difference| \(difference) at level \(level)")
                #expect(abs(small.reduce(0, +) / Double(small.count) - level) < 0.01 * level)
            }
        }
    }
}

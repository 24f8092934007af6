import Hardware
@testable import SimulatedHardware
import Testing
@testable import Camera

// A still stream gives the format table's `still` size (the sensor mode) where the format's output
// is smaller; the video, when one is wanted, is the smaller processed stream at the output size.

private func stillRig(format: String, role: StreamRole, video: Bool, processedStreamLimit: Int? = nil) throws -> Rig {
    let rig = try Rig()
    rig.camera.pipeline.processedStreamLimit = processedStreamLimit
    try rig.controller.selectFormat(format)
    if video { try rig.controller.requestVideoStream(VideoStreamRequest(framesPerSecond: 30)) }
    try rig.controller.startStreaming(StreamingConfiguration(processedRole: role))
    rig.loop.advance(by: .milliseconds(200))
    return rig
}

@Test func aStillStreamBesideTheVideoIsTheFormatsFullStill() throws {
    let rig = try stillRig(format: "1920x1080@56", role: .stillCapture, video: true)
    let still = rig.controller.activeFormat.format.highResolutionStill
    #expect(still == PixelSize(width: 2304, height: 1296))
    #expect(rig.controller.processedStreamSize == still)
    #expect(rig.controller.videoStream?.size == PixelSize(width: 1920, height: 1080))
    #expect(rig.controller.videoStreamNote == nil)
    // Both streams fill every frame (the rig renders small; the end-to-end test reads the files).
    let frame = try #require(rig.controller.latestRequest)
    #expect(frame.buffers[.stillCapture] != nil && frame.buffers[.videoRecording] != nil)
}

@Test func aViewfinderStreamStaysAtTheFormatsOutputSize() throws {
    let rig = try stillRig(format: "1920x1080@56", role: .viewfinder, video: false)
    #expect(rig.controller.processedStreamSize == PixelSize(width: 1920, height: 1080))
}

@Test func aFormatWhoseOutputIsItsModeKeepsItsSize() throws {
    let rig = try stillRig(format: "1536x864@120", role: .stillCapture, video: false)
    #expect(rig.controller.processedStreamSize == PixelSize(width: 1536, height: 864))
}

@Test func withoutRoomForTheVideoStreamTheStillStreamFallsBackToTheOutputSize() throws {
    // One processed stream (as vimc): the video is refused at the still size and at the output
    // size, so recording converts the processed stream, which must then be the format's output.
    let rig = try stillRig(format: "1920x1080@56", role: .stillCapture, video: true, processedStreamLimit: 1)
    #expect(rig.controller.videoStream == nil)
    #expect(rig.controller.videoStreamNote != nil)
    #expect(rig.controller.processedStreamSize == PixelSize(width: 1920, height: 1080))
}

@Test func theSimulatedPipelineRefusesASecondProcessedStreamLargerThanTheFirst() throws {
    let imx708 = try sensor("imx708")
    func streams(_ a: PixelSize, _ b: PixelSize) -> [StreamConfiguration] {
        [StreamConfiguration(role: .stillCapture, pixelFormat: .bgr888, size: a, bufferCount: 4),
         StreamConfiguration(role: .videoRecording, pixelFormat: .yuv420, size: b, bufferCount: 4)]
    }
    let smallerSecond = SimulatedControlInfo.validate(streams(PixelSize(width: 2304, height: 1296), PixelSize(width: 1920, height: 1080)), sensor: imx708)
    #expect(smallerSecond.0 != .invalid)
    // Wider but shorter: larger in one dimension is enough to refuse.
    let widerSecond = SimulatedControlInfo.validate(streams(PixelSize(width: 1920, height: 1440), PixelSize(width: 2304, height: 1296)), sensor: imx708)
    #expect(widerSecond.0 == .invalid)
}

import Foundation
import Media
import SimulatedHardware
import Testing
import TestSupport

/// The whole capture path (console `capture`, the capture service, the frame writer) on a simulated
/// IMX708 whose raw stream hands back a Pi 5's or a Pi 4's layout: the DNG is written at the
/// sensor mode's 10 bits, because the service carries the mode's depth from the camera format.
@Suite(.serialized) struct RawFormatCaptureTests {
    @Test(arguments: [(SimulatedRawOutput.pisp16, "SRGGB16"), (.pispComp1, "RGGB_PISP_COMP1"), (.csi2Packed, "SRGGB10_CSI2P")])
    func aCaptureWritesTheModesBitDepthWhateverTheRawStreamDelivers(_ output: SimulatedRawOutput, _ delivered: String) throws {
        let rig = try CaptureRig(rawOutput: output)
        #expect(rig.send("capture").contains { $0.hasPrefix("ok bracket=started") })
        let lines = rig.settle(until: { $0.event("bracket.done") != nil || $0.event("bracket.failed") != nil })
        #expect(lines.event("bracket.done") != nil, "\(lines)")
        let sidecar = try #require(try rig.sidecars().first)
        let frame = try #require(sidecar.frames.first)
        #expect(frame.raw == RawRecord(delivered: delivered, written: "SRGGB10", bitsPerSample: 10))
        let dng = try #require(frame.files.first { $0.kind == .dng })
        let bytes = try #require(rig.storage.files[sidecar.folder + "/" + dng.name])
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("raw-\(UUID().uuidString).dng").path
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        let white = String(decoding: try runTool("/usr/bin/exiftool", ["-s3", "-n", "-IFD0:WhiteLevel", file]), as: UTF8.self)
        #expect(white.trimmingCharacters(in: .whitespacesAndNewlines) == "1023")
    }
}

import Camera
import Foundation
import FoundationXML
import Hardware
import Motion
import Testing
@testable import Stabilization

@Suite("Metadata and crops")
struct OutputTests {
    @Test("XMP packet and maker note carry status, blur, attempt and alignment")
    func metadata() throws {
        let verdict = FrameVerdict(retake: false, status: .active, measuredBlurPixels: 1.234, alignment: [0.9999, 0.01, -0.002, 0.0005])
        let meta = StabilizationMetadata(verdict: verdict, attempt: 2, blurThresholdPixels: 2)
        let xmp = meta.xmpPacket
        #expect(xmp.hasPrefix("<?xpacket begin="))
        #expect(xmp.hasSuffix("<?xpacket end=\"w\"?>"))
        #expect(xmp.contains("tripodstab:Status=\"Active\""))
        #expect(xmp.contains("tripodstab:MeasuredBlurPixels=\"1.23\""))
        #expect(xmp.contains("tripodstab:Attempt=\"2\""))
        #expect(xmp.contains("tripodstab:AlignmentQuaternion=\"0.9999000,0.0100000,-0.0020000,0.0005000\""))
        // Well-formed XML once the processing instructions are stripped.
        let body = xmp.split(separator: "\n").filter { !$0.hasPrefix("<?xpacket") }.joined(separator: "\n")
        #expect(XMLParser(data: Data(body.utf8)).parse())
        let off = StabilizationMetadata(status: .off, blurThresholdPixels: 2)
        #expect(off.makerNote == "Tripod Stabilization Status=Off;Attempt=1;BlurThresholdPixels=2.00")
        #expect(!off.xmpPacket.contains("MeasuredBlurPixels"))
    }

    @Test("software crop cuts the rectangle's pixels and scales them back to the output size")
    func softwareCrop() throws {
        // 8×4 BGR888 frame whose red byte is x and green byte is y.
        let size = PixelSize(width: 8, height: 4)
        var bytes: [UInt8] = []
        for y in 0..<4 { for x in 0..<8 { bytes += [UInt8(x), UInt8(y), 7] } }
        let frame = FrameBuffer(pixelFormat: .bgr888, size: size, stride: 24, bytes: bytes)
        let cut = try SoftwareCrop.crop(frame, rect: PixelRect(x: 2, y: 1, width: 4, height: 2))
        #expect(cut.size == PixelSize(width: 4, height: 2))
        #expect(Array(cut.bytes.prefix(6)) == [2, 1, 7, 3, 1, 7])
        let scaled = try SoftwareCrop.crop(frame, rect: PixelRect(x: 2, y: 1, width: 4, height: 2), outputSize: size)
        #expect(scaled.size == size && scaled.bytes[0] == 2 && scaled.bytes[(3 * 8 + 7) * 3] == 5 && scaled.bytes[(3 * 8 + 7) * 3 + 1] == 2)
        #expect(throws: StabilizationError.self) { try SoftwareCrop.crop(frame, rect: PixelRect(x: 6, y: 0, width: 4, height: 2)) }
        let raw = FrameBuffer(pixelFormat: .srggb12, size: size, stride: 16, bytes: [UInt8](repeating: 0, count: 64))
        #expect(throws: StabilizationError.self) { try SoftwareCrop.crop(raw, rect: PixelRect(x: 0, y: 0, width: 2, height: 2)) }
        // Field coordinates to buffer coordinates.
        #expect(SoftwareCrop.rect(PixelRect(x: 100, y: 50, width: 400, height: 200), field: PixelSize(width: 800, height: 400), in: size)
            == PixelRect(x: 1, y: 1, width: 4, height: 2))
    }

    @Test("crops map to ScalerCrop in pixel-array coordinates; a still camera gets the centred crop")
    func scalerCrop() throws {
        let planner = try EISCropPlanner(mode: .standard, field: PixelSize(width: 4608, height: 2592), focalLengthPixels: 3386)
        let q = Quaternion.identity
        let crops = planner.push(frameTime: MonotonicTime(nanoseconds: 0), orientation: q)
            + planner.push(frameTime: MonotonicTime(nanoseconds: 33_333_333), orientation: q)
        let centred = PixelRect(x: (4608 - planner.cropSize.width) / 2, y: (2592 - planner.cropSize.height) / 2,
                                width: planner.cropSize.width, height: planner.cropSize.height)
        #expect(crops.map(\.rect) == [centred, centred])
        let sensorCrop = PixelRect(x: 16, y: 8, width: 4608, height: 2592)
        #expect(EISCropPlanner.scalerCrop(crops[0], sensorCrop: sensorCrop, field: planner.field)
            == PixelRect(x: centred.x + 16, y: centred.y + 8, width: centred.width, height: centred.height))
        #expect(throws: StabilizationError.self) { try EISCropPlanner(mode: .auto, field: planner.field, focalLengthPixels: 3386) }
    }

    @Test("a sudden turn larger than the margin is clamped: the crop stays inside the field")
    func clamp() throws {
        let planner = try EISCropPlanner(mode: .standard, field: PixelSize(width: 1000, height: 600), focalLengthPixels: 800)
        _ = planner.push(frameTime: MonotonicTime(nanoseconds: 0), orientation: .identity)
        let turned = Quaternion(axis: Vector3(0, 1, 0), angle: 0.2)  // 11°: ~160 px, margin is ~45 px
        let crop = try #require(planner.push(frameTime: MonotonicTime(nanoseconds: 33_333_333), orientation: turned).first)
        #expect(abs(crop.rawPathPixels.x) > 150)
        #expect(crop.rect.x == 0 || crop.rect.x + crop.rect.width == 1000)
    }
}

@Suite("Alignment offsets for the sidecar")
struct AlignmentOffsetTests {
    @Test("turning right moves the content left; rolling clockwise turns the content anticlockwise")
    func signs() throws {
        let right = Quaternion(axis: Vector3(0, 1, 0), angle: 0.01)
        let a = try #require(AlignmentOffsets(quaternion: [right.w, right.x, right.y, right.z], focalLengthPixels: 1000))
        #expect(abs(a.offsetXPixels + 10.0) < 0.01 && abs(a.offsetYPixels) < 1e-9 && abs(a.rotationDegrees) < 1e-9)
        let roll = Quaternion(axis: Vector3(0, 0, 1), angle: 2 * .pi / 180)
        let r = try #require(AlignmentOffsets(quaternion: [roll.w, roll.x, roll.y, roll.z], focalLengthPixels: 1000))
        #expect(abs(r.rotationDegrees + 2) < 1e-9 && abs(r.offsetXPixels) < 1e-9)
        #expect(AlignmentOffsets(quaternion: [1, 0, 0], focalLengthPixels: 1000) == nil)
    }
}

import Boards
import Foundation
import Hardware
import ManualLoop
import Testing
@testable import Media
@testable import SimulatedHardware

/// A capture on the simulated board whose `camera.raw` makes the raw stream hand back what a Pi 5
/// (16-bit MSB-aligned, or `*_PISP_COMP1`) or a Pi 4 (CSI-2 packed) does, saved through the capture
/// store: LibRaw (rawpy) reads the DNG's samples back, exiftool its white and black levels.
@Suite(.serialized) struct SimulatedRawFormatsTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var sensor: String, raw: String
        /// The raw stream's format the camera configures.
        var delivered: String
        var testDescription: String { "\(sensor) \(raw)" }
    }

    static let cases: [Case] = [
        Case(sensor: "imx708", raw: "pisp16", delivered: "SRGGB16"),
        Case(sensor: "imx708", raw: "csi2-packed", delivered: "SRGGB10_CSI2P"),
        Case(sensor: "imx708", raw: "pisp-comp1", delivered: "RGGB_PISP_COMP1"),
        Case(sensor: "imx477", raw: "pisp16", delivered: "SRGGB16"),
        Case(sensor: "imx477", raw: "csi2-packed", delivered: "SRGGB12_CSI2P"),
        Case(sensor: "imx477", raw: "pisp-comp1", delivered: "RGGB_PISP_COMP1"),
    ]

    /// The embedded `sim-small` board (frames no larger than 384×216) with `sensor` and `camera.raw`.
    static func board(sensor: String, raw: String?) throws -> BoardDescription {
        let text = try #require(EmbeddedDescriptions.boards["sim-small"])
        var json = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        var camera = try #require(json["camera"] as? [String: Any])
        camera["sensor"] = sensor
        if let raw { camera["raw"] = raw }
        json["camera"] = camera
        return try JSONDecoder().decode(BoardDescription.self, from: try JSONSerialization.data(withJSONObject: json))
    }

    /// One raw frame of the sensor's largest mode, asked for as the mode's unpacked format (as
    /// Tripod asks), with exposure, gain and colour gains fixed so every board draws the same samples.
    static func capture(sensor model: String, raw: String?) throws
        -> (frame: CompletedRequest, stream: StreamConfiguration, status: ConfigurationStatus, sensor: SensorDescription) {
        let loop = ManualEventLoop()
        let provider = try SimulatedCameraProvider(loop: loop, board: try board(sensor: model, raw: raw), sensors: [])
        let camera = try #require(try provider.open(id: provider.cameraID) as? SimulatedCamera)
        let sensor = provider.sensor
        let mode = try #require(sensor.modes.filter { $0.hdr != true }.max { $0.size.area < $1.size.area })
        let (status, streams) = try camera.configure([StreamConfiguration(
            role: .raw, pixelFormat: PixelFormat("S\(sensor.bayerOrder ?? "RGGB")\(mode.bitDepth)"), size: mode.size)])
        let done = Completions()
        camera.setEventHandler { if case .requestCompleted(let c) = $0 { done.list.append(c) } }
        try camera.start(controls: [ControlName.aeEnable: .bool(false), ControlName.exposureTime: .int32(20_000),
                                    ControlName.analogueGain: .float(2), ControlName.awbEnable: .bool(false),
                                    ControlName.colourGains: .floatArray([2, 1.5])])
        try camera.queueRequest(CaptureRequest(cookie: 1, roles: [.raw]))
        loop.advance(by: .milliseconds(300))
        camera.stop()
        let frame = try #require(done.list.first { $0.isComplete })
        return (frame, try #require(streams.first), status, sensor)
    }

    /// The frame saved as a one-frame bracket (lossless DNG), the DNG's path in `directory`, and its sidecar record.
    static func save(_ frame: CompletedRequest, sensor: SensorDescription, modeBitDepth: Int, in directory: String) throws
        -> (path: String, record: FrameRecord) {
        let storage = SimulatedStorage()
        var configuration = CaptureStore.Configuration(sensor: sensor, naming: CaptureNaming(timeZone: TimeZone(identifier: "UTC") ?? .current))
        configuration.safetyMarginBytes = 0
        let store = try CaptureStore(storage: storage, configuration: configuration)
        let raw = try #require(frame.buffers[.raw])
        let bracket = try store.beginBracket(BracketStart(
            plan: BracketPlanRecord(kind: "single", summary: "capture", frameCount: 1),
            outputs: BracketOutputs(rawSize: raw.size, rgbSize: nil, rawBitDepth: modeBitDepth),
            startTime: Date(timeIntervalSince1970: 1_790_000_000)))
        let record = try bracket.addFrame(frame, requested: FrameSettings(exposureTimeMicroseconds: 20_000, analogueGain: 2))
        try bracket.finish()
        let bytes = try storage.read(bracket.folder + "/" + bracket.id + "_01.dng")
        return (try writeTemporary(bytes, name: "\(sensor.model)-\(raw.pixelFormat).dng", in: directory), record)
    }

    @Test(arguments: cases)
    func theDNGHoldsTheUnpackedFrameAtTheModesBitDepth(_ c: Case) throws {
        let reference = try Self.capture(sensor: c.sensor, raw: nil)
        let packed = try Self.capture(sensor: c.sensor, raw: c.raw)
        let bits = try #require(reference.sensor.modes.first { $0.size == reference.stream.size }?.bitDepth)
        #expect(reference.status == .valid && reference.stream.pixelFormat == PixelFormat("SRGGB\(bits)"))
        #expect(packed.status == .adjusted && packed.stream.pixelFormat == PixelFormat(c.delivered))
        let delivered = try #require(packed.frame.buffers[.raw])
        #expect(delivered.pixelFormat == PixelFormat(c.delivered))
        let expected = samples(of: try #require(reference.frame.buffers[.raw]))

        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (file, record) = try Self.save(packed.frame, sensor: packed.sensor, modeBitDepth: bits, in: directory)
        #expect(record.raw == RawRecord(delivered: c.delivered, written: "SRGGB\(bits)", bitsPerSample: bits))
        let tags = try exiftoolJSON(file)
        #expect(tags["EXIF:WhiteLevel"] as? Int == (1 << bits) - 1)
        let black = Double(packed.sensor.blackLevel16 ?? 4096) / Double(1 << (16 - bits))
        #expect(isClose(tags["EXIF:BlackLevel"], black), "\(String(describing: tags["EXIF:BlackLevel"]))")
        let decoded = try rawpySamples(file)
        #expect(decoded.width == delivered.size.width && decoded.height == delivered.size.height)
        if c.raw == "pisp-comp1" {
            // Lossy: within half a step of the coarsest level (mode 3: 512 at 16 bits), in the mode's units.
            let bound = Int(PiSPCompression.largestError16(mode: 3) >> (16 - bits))
            let worst = zip(decoded.samples, expected).map { abs(Int($0) - Int($1)) }.max() ?? .max
            #expect(decoded.samples.count == expected.count && worst <= bound, "largest error \(worst), bound \(bound)")
            // Mostly far better: most of the chart codes in the finer modes (mode 1: a step of 64 at 16 bits).
            let fine = max(1, PiSPCompression.largestError16(mode: 1) >> (16 - bits))
            let close = zip(decoded.samples, expected).filter { abs(Int($0) - Int($1)) <= fine }.count
            #expect(close * 2 > expected.count, "\(close) of \(expected.count) within \(fine)")
        } else {
            #expect(decoded.samples == expected)
        }
    }

    @Test func theUnpackedBoardWritesTheSamplesAsTheyCameAndRecordsNothingAboutThem() throws {
        let reference = try Self.capture(sensor: "imx708", raw: "unpacked")
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (file, record) = try Self.save(reference.frame, sensor: reference.sensor, modeBitDepth: 10, in: directory)
        #expect(record.raw == nil)
        #expect(try rawpySamples(file).samples == samples(of: try #require(reference.frame.buffers[.raw])))
    }

    @Test func anUnknownRawOptionIsRefusedByName() throws {
        let board = try Self.board(sensor: "imx708", raw: "pisp-comp2")
        do {
            _ = try SimulatedCameraProvider(loop: ManualEventLoop(), board: board, sensors: [])
            Issue.record("camera.raw pisp-comp2 was accepted")
        } catch let error as HardwareError {
            #expect(error.message.contains("pisp-comp2") && error.message.contains("csi2-packed"), "\(error.message)")
        }
    }
}

private final class Completions: @unchecked Sendable {
    var list: [CompletedRequest] = []
}

import Foundation
import Hardware
import Testing
import Viewfinder

/// Overlays rendered at three display sizes, compared with PNGs in Reference/ that a person can
/// open. Regenerate after an intended change with `TRIPOD_UPDATE_REFERENCES=1 swift test --filter
/// ReferenceImageTests`, then look at the images before committing them.
@Suite struct ReferenceImageTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Reference")
    static let updating = ProcessInfo.processInfo.environment["TRIPOD_UPDATE_REFERENCES"] == "1"

    /// Mean absolute channel difference and the fraction of pixels off by more than 16 in a channel.
    static func difference(_ a: Canvas, _ b: Canvas) -> (mean: Double, outliers: Double) {
        var total = 0, outliers = 0
        for (p, q) in zip(a.pixels, b.pixels) {
            let d = [16, 8, 0].map { abs(Int((p >> $0) & 0xFF) - Int((q >> $0) & 0xFF)) }
            total += d.reduce(0, +)
            if d.contains(where: { $0 > 16 }) { outliers += 1 }
        }
        let n = max(1, a.pixels.count)
        return (Double(total) / Double(3 * n), Double(outliers) / Double(n))
    }

    func check(_ canvas: Canvas, against name: String) throws {
        let url = Self.directory.appendingPathComponent("\(name).png")
        if Self.updating {
            try Data(PNG.encode(canvas)).write(to: url)
        }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            Issue.record("missing \(url.path): run with TRIPOD_UPDATE_REFERENCES=1 to create it, then look at it")
            return
        }
        let reference = try PNG.decode(Array(data))
        #expect(reference.size == canvas.size)
        let d = Self.difference(canvas, reference)
        let ok = reference.size == canvas.size && d.mean <= 0.5 && d.outliers <= 0.002
        if !ok {
            let actual = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-actual.png")
            try Data(PNG.encode(canvas)).write(to: actual)
            Issue.record("\(name): mean diff \(d.mean), outliers \(d.outliers * 100)%; actual in \(actual.path)")
        }
    }

    static let sizes = [PixelSize(width: 320, height: 240), PixelSize(width: 800, height: 480),
                        PixelSize(width: 1920, height: 1080)]

    @Test(arguments: sizes)
    func fullOverlay(size: PixelSize) throws {
        var options = OverlayOptions()
        options.zebra = true
        options.focusPeaking = true
        let renderer = ViewfinderRenderer(displaySize: size, options: options)
        try check(renderer.render(frame: TestScene.chart(), status: TestScene.status), against: "overlay-\(size)")
    }

    @Test func compactNoSignalWithSparseStatus() throws {
        var status = ViewfinderStatus()
        status.exposureDurationMicroseconds = 1_500_000
        status.iso = 100
        status.exposureBiasEV = 0
        status.whiteBalance = .preset("daylight")
        status.lensPositionDioptres = 0
        status.format = "YUV 640x480"
        let renderer = ViewfinderRenderer(displaySize: .init(width: 320, height: 240))
        try check(renderer.render(frame: nil, status: status), against: "nosignal-320x240")
    }
}

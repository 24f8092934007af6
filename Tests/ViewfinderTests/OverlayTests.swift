import Hardware
import Testing
@testable import Viewfinder

@Suite struct OverlayTests {
    @Test func zebraStripesOnlyClippedPixels() {
        var canvas = Canvas(size: .init(width: 8, height: 2), fill: 0xFFFFFF)
        canvas.fill(.init(x: 4, y: 0, width: 4, height: 2), color: 0xF0F0F0)  // luma 240: below 250
        ImageAids.apply(to: &canvas, in: .init(x: 0, y: 0, width: 8, height: 2), zebra: true, zebraThreshold: 250,
                        period: 4, peaking: false, peakingThreshold: 60)
        let expectedRow0: [UInt32] = [0, 0, 0xFFFFFF, 0xFFFFFF] + [UInt32](repeating: 0xF0F0F0, count: 4)
        let expectedRow1: [UInt32] = [0, 0xFFFFFF, 0xFFFFFF, 0] + [UInt32](repeating: 0xF0F0F0, count: 4)
        #expect(canvas.pixels == expectedRow0 + expectedRow1)
    }

    @Test func peakingMarksTheEdgeAndNothingElse() {
        var canvas = Canvas(size: .init(width: 6, height: 3), fill: 0x000000)
        canvas.fill(.init(x: 3, y: 0, width: 3, height: 3), color: 0xFFFFFF)
        ImageAids.apply(to: &canvas, in: .init(x: 0, y: 0, width: 6, height: 3), zebra: false, zebraThreshold: 250,
                        period: 4, peaking: true, peakingThreshold: 60, peakingColor: 0xFF0000)
        for y in 0..<3 {
            #expect((0..<6).map { canvas.pixel(x: $0, y: y) } == [0, 0, 0xFF0000, 0xFFFFFF, 0xFFFFFF, 0xFFFFFF])
        }
    }

    @Test func aidsOutsideTheImageRectLeaveBarsAlone() {
        var canvas = Canvas(size: .init(width: 4, height: 4), fill: 0xFFFFFF)
        ImageAids.apply(to: &canvas, in: .init(x: 0, y: 1, width: 4, height: 2), zebra: true, zebraThreshold: 250,
                        period: 2, peaking: false, peakingThreshold: 60)
        #expect(canvas.pixels[0..<4].allSatisfy { $0 == 0xFFFFFF } && canvas.pixels[12..<16].allSatisfy { $0 == 0xFFFFFF })
        #expect(canvas.pixels[4..<12].contains(0))
    }

    @Test func histogramCountsLumaBins() {
        var canvas = Canvas(size: .init(width: 10, height: 2), fill: 0x000000)
        canvas.fill(.init(x: 0, y: 1, width: 10, height: 1), color: 0xFFFFFF)
        canvas.fill(.init(x: 0, y: 0, width: 2, height: 1), color: 0x808080)
        let h = LumaHistogram(of: canvas, in: .init(x: 0, y: 0, width: 10, height: 2), bins: 4)
        #expect(h.counts == [8, 0, 2, 10])
        #expect(LumaHistogram(of: canvas, in: .init(x: 0, y: 0, width: 10, height: 2), bins: 4, step: 2).counts == [4, 0, 1, 0])
    }

    @Test func fontDrawsTheDesignedGlyphAtIntegerScales() {
        var canvas = Canvas(size: .init(width: 12, height: 14))
        BitmapFont.draw("A", x: 0, y: 0, scale: 1, color: 0xFFFFFF, shadow: nil, into: &canvas)
        // "A": .###. / #...# / #...# / ##### / #...# / #...# / #...#
        let rows = (0..<7).map { y in String((0..<5).map { canvas.pixel(x: $0, y: y) != 0 ? "#" : "." }) }
        #expect(rows == [".###.", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"])
        var big = Canvas(size: .init(width: 12, height: 14))
        BitmapFont.draw("A", x: 0, y: 0, scale: 2, color: 0xFFFFFF, shadow: nil, into: &big)
        #expect(big.pixel(x: 2, y: 0) != 0 && big.pixel(x: 3, y: 1) != 0 && big.pixel(x: 1, y: 0) == 0)
        #expect(BitmapFont.size(of: "AB", scale: 3) == (width: 33, height: 21))
        #expect(BitmapFont.bits("é") == BitmapFont.bits("?"))
        #expect(Set(BitmapFont.glyphs5x7).count == 95)  // every printable ASCII glyph is distinct
    }

    @Test func layoutAdaptsToDisplaySize() {
        let small = ViewfinderLayout(displaySize: .init(width: 320, height: 240))
        let medium = ViewfinderLayout(displaySize: .init(width: 800, height: 480))
        let large = ViewfinderLayout(displaySize: .init(width: 1920, height: 1080))
        #expect([small.sizeClass, medium.sizeClass, large.sizeClass] == [.compact, .regular, .full])
        #expect([small.textScale, medium.textScale, large.textScale] == [1, 2, 4])
        let portrait = ViewfinderLayout(displaySize: .init(width: 480, height: 800))
        #expect(portrait.sizeClass == .regular && portrait.textScale == 1)
        for l in [small, medium, large, portrait] {
            let full = PixelRect(x: 0, y: 0, width: l.displaySize.width, height: l.displaySize.height)
            #expect(Canvas(size: l.displaySize).clip(l.histogram) == l.histogram, "histogram inside \(full)")
            #expect(l.histogram.y + l.histogram.height <= l.bottomBar.y)
            #expect(l.topBar.y + l.topBar.height <= l.histogram.y)
        }
    }

    @Test func statusTextFormatsUnitsReadably() {
        #expect(StatusText.exposure(8000) == "1/125")
        #expect(StatusText.exposure(250) == "1/4000")
        #expect(StatusText.exposure(1_500_000) == "1.5s")
        #expect(StatusText.exposure(2_000_000) == "2s")
        #expect(StatusText.exposure(nil) == "--")
        #expect(StatusText.ev(-0.7) == "-0.7" && StatusText.ev(0.04) == "0.0" && StatusText.ev(1) == "+1.0")
        #expect(StatusText.focus("MF", 0) == "MF INF" && StatusText.focus("AF-C", 1.25) == "AF-C 1.25D")
        #expect(StatusText.fps(29.97) == "30fps" && StatusText.fps(7.5) == "7.5fps")
        #expect(StatusText.whiteBalance(.preset("daylight"), compact: true) == "DAYL")
        let compact = StatusText.lines(TestScene.status, sizeClass: .compact)
        #expect(compact.top == ["M 1/125 ISO400 -0.7EV 5600K"])
        #expect(compact.bottom == ["AF-C 1.25D RAW12 4608x2592 30fps", "BRK 2/5 -1.0EV IS ON IMU OK 800Hz"])
        let full = StatusText.lines(TestScene.status, sizeClass: .full)
        #expect(full.bottom[0] == "BRK 2/5 -1.0EV   STAB ON roll -1.2deg margin 35%   IMU OK 800Hz")
        // Zoom shows only above 1.
        var zoomed = TestScene.status
        zoomed.zoomFactor = 1
        #expect(StatusText.lines(zoomed, sizeClass: .compact).bottom[0] == "AF-C 1.25D RAW12 4608x2592 30fps")
        zoomed.zoomFactor = 2
        #expect(StatusText.lines(zoomed, sizeClass: .compact).bottom[0] == "AF-C 1.25D RAW12 4608x2592 30fps 2.0x")
    }

    @Test func overlaysOffLeaveTheScaledFrameUntouched() throws {
        let frame = TestScene.chart(width: 64, height: 36)
        var plain = Canvas(size: .init(width: 320, height: 240))
        try FrameScaler(filter: .bilinear).draw(frame, into: &plain)
        var options = OverlayOptions()
        options.status = false; options.histogram = false
        let renderer = ViewfinderRenderer(displaySize: .init(width: 320, height: 240), options: options)
        #expect(try renderer.render(frame: frame, status: TestScene.status) == plain)
        renderer.options.zebra = true
        #expect(try renderer.render(frame: frame, status: TestScene.status) != plain)
    }
}

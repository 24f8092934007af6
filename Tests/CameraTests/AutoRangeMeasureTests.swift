import Camera
import Hardware
import Testing

/// The auto-range measurement runs on the loop for every bracket frame, so it reads a bounded grid,
/// not the whole frame (issue 19: a 12 MP frame was scanned in full on the loop), and still finds
/// the fractions a full scan finds.
@Test func theAutoRangeMeasurementReadsABoundedSampleOfALargeFrame() {
    let width = 4056, height = 3040
    var bytes = [UInt8](repeating: 128, count: width * height * 3)
    // Top 12 % of rows blown out (one channel is enough), bottom 3 % black, a 1-pixel checker in between.
    for row in 0..<height {
        for column in 0..<width {
            let p = (row * width + column) * 3
            if row < height * 12 / 100 { bytes[p + 1] = 255 }
            else if row >= height * 97 / 100 { bytes[p] = 0; bytes[p + 1] = 0; bytes[p + 2] = 0 }
        }
    }
    let frame = FrameBuffer(pixelFormat: .bgr888, size: PixelSize(width: width, height: height), stride: width * 3, bytes: bytes)
    let extremes = TonalExtremes(frame, clippedLevel: 250, crushedLevel: 5)
    #expect(extremes != nil)
    guard let extremes else { return }
    #expect(extremes.samplesMeasured <= TonalExtremes.maximumSamples, "\(extremes.samplesMeasured) pixels read")
    #expect(extremes.samplesMeasured > TonalExtremes.maximumSamples / 2, "the grid covers the frame")
    #expect(abs(extremes.clippedFraction - 0.12) < 0.005, "\(extremes.clippedFraction)")
    #expect(abs(extremes.crushedFraction - 0.03) < 0.005, "\(extremes.crushedFraction)")
}

/// A small frame (the simulated camera's) is measured pixel by pixel.
@Test func aSmallFrameIsMeasuredWhole() {
    let frame = FrameBuffer(pixelFormat: .bgr888, size: PixelSize(width: 96, height: 54), stride: 96 * 3,
                            bytes: [UInt8](repeating: 255, count: 96 * 54 * 3))
    let extremes = TonalExtremes(frame, clippedLevel: 250, crushedLevel: 5)
    #expect(extremes?.samplesMeasured == 96 * 54)
    #expect(extremes?.clippedFraction == 1)
}

import Foundation
import Glibc
import Hardware
import Media

/// Wall times of five-frame brackets saved on a `PacedStorage` (an SD card's write rate), one
/// compression of the DNGs.
struct CardBracketMeasurement {
    var compression: DNGCompression
    var bracketSeconds: [Double] = []
    /// Bytes of one bracket's files (DNGs, sidecar rewrites, the counter), as charged to the card.
    var bytesPerBracket: Int64 = 0
    /// Seconds per bracket spent waiting for the card's pace.
    var pacedSecondsPerBracket: Double = 0

    var bracketsPerMinute: Double { 60 * Double(bracketSeconds.count) / bracketSeconds.reduce(0, +) }
}

/// Saves `brackets` brackets of `framesPerBracket` copies of `chart` through the firmware's path
/// (`CaptureStore.beginBracket`, `BracketRecorder.addFrame` per frame: DNG encode, SHA-256,
/// atomic write, sidecar; then `finish`) on a store paced at `bytesPerSecond`. DNG only (no
/// still stream), so the rows differ only by `media.dng.compression`. Files removed afterwards.
func measureCardBrackets(_ chart: ChartFrame, compression: DNGCompression, brackets: Int, framesPerBracket: Int,
                         bytesPerSecond: Double, directory: String) throws -> CardBracketMeasurement {
    let scratch = directory + "/card-\(getpid())-\(compression.rawValue)"
    defer { try? FileManager.default.removeItem(atPath: scratch) }
    let storage = try PacedStorage(root: scratch, bytesPerSecond: bytesPerSecond)
    let store = try CaptureStore(storage: storage, configuration: CaptureStore.Configuration(sensor: chart.sensor))
    let requested = FrameSettings(exposureTimeMicroseconds: Int(chart.exposureMicroseconds), analogueGain: 1,
                                  colourGains: ColourGains(red: 2.0, blue: 1.6))
    let plan = BracketPlanRecord(kind: "ev", summary: "bracket ev \(framesPerBracket) 0 (bench)", frameCount: framesPerBracket)
    var m = CardBracketMeasurement(compression: compression)
    for _ in 0..<brackets {
        let bytesBefore = storage.bytesWritten, pacedBefore = storage.pacedNanoseconds
        let seconds = try timed {
            let recorder = try store.beginBracket(BracketStart(plan: plan, outputs: BracketOutputs(rawSize: chart.size, rgbSize: nil),
                                                               startTime: Date(), dngCompression: compression))
            for i in 0..<framesPerBracket { try recorder.addFrame(chart.request, requested: requested, index: i) }
            try recorder.finish()
        }
        m.bracketSeconds.append(seconds)
        m.bytesPerBracket = storage.bytesWritten - bytesBefore
        m.pacedSecondsPerBracket = Double(storage.pacedNanoseconds - pacedBefore) / 1e9
    }
    return m
}

import Foundation
import Hardware
import TestSupport
import Video

/// One real-time recording on the simulated board: the release `tripod run --board sim` beside
/// this benchmark, driven through its stdio console (format, motion, stabilization, `record
/// start`, a wait, `record stop`), then its sidecar read back. The board runs on the real clock,
/// so what it keeps is what a person would get from the same commands.
struct SimulatedRecordingRun {
    var label: String
    /// `format` argument, e.g. 1920x1080@30.
    var format: String
    var framesPerSecond: Double
    var settings: [String]
    var recordSeconds: Double

    struct Result {
        var written: Int
        var reportedDropped: Int
        /// Frames the sensor made from the recording's first frame to its last (its timestamps).
        var expected: Int
        /// Sequence numbers from the first frame to the last.
        var sequenceSpan: Int
        /// Seconds of sensor time from the first frame to the last.
        var sensorSeconds: Double
        var loadBefore: Double
        var loadAfter: Double
    }

    func run(binary: String, work: URL) throws -> Result {
        let directory = work.appendingPathComponent(label.replacingOccurrences(of: " ", with: "-"))
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let captures = directory.appendingPathComponent("captures")
        let tripod = try SimulatedTripodProcess(binary: binary, directory: directory, label: "simcam")
        defer { if tripod.process.isRunning { tripod.quit() } }
        func send(_ line: String, waitFor prefix: String = "ok", timeout seconds: Double = 30) throws -> String {
            try tripod.send(line, waitFor: prefix, timeout: seconds)
        }
        _ = try send("status", timeout: 60)  // started
        _ = try send("format \(format)")
        for setting in settings { _ = try send(setting) }
        usleep(1_500_000)  // AE, AWB and the stabilizer settle
        let loadBefore = Self.loadAverage()
        _ = try send("record start")
        usleep(UInt32(recordSeconds * 1e6))
        let loadAfter = Self.loadAverage()
        let stopped = try send("record stop", waitFor: "event record.stopped", timeout: 120)
        tripod.quit()
        func field(_ key: String) -> Int {
            stopped.split(separator: " ").first { $0.hasPrefix(key + "=") }.flatMap { Int($0.dropFirst(key.count + 1)) } ?? -1
        }
        guard let sidecar = RecordingSoakBenchmark.sidecars(under: captures).first else {
            throw HardwareError(.notFound, "simcam: \(label): no video sidecar under \(captures.path)")
        }
        let seconds = Double(sidecar.lastSensorTimestampNanoseconds - sidecar.firstSensorTimestampNanoseconds) / 1e9
        return Result(written: field("frames"), reportedDropped: field("dropped"),
                      expected: Int((seconds * framesPerSecond).rounded()) + 1,
                      sequenceSpan: Int(sidecar.lastSequence - sidecar.firstSequence) + 1, sensorSeconds: seconds,
                      loadBefore: loadBefore, loadAfter: loadAfter)
    }

    /// The one-minute load average (/proc/loadavg).
    static func loadAverage() -> Double {
        (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)).flatMap { $0.split(separator: " ").first }.flatMap { Double($0) } ?? .nan
    }
}

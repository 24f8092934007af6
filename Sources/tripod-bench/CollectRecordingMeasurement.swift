import Foundation
import Hardware
import TestSupport
import Video

/// A 1080p30 recording on one rig of a collected group (`tools/bench collect`): `format
/// 1920x1080@30`, `record start`, whatever runs meanwhile (collections of the group's shots, or
/// nothing, for the baseline), `record stop`; then the recording's own count from its sidecar.
struct CollectRecordingMeasurement {
    struct Result {
        var framesWritten: Int
        /// Frames the recording's sidecar lists as dropped, by cause.
        var dropped: [String: Int]
        /// Sequence numbers from its first frame to its last: frames the sensor made meanwhile.
        var sequenceSpan: Int
        var seconds: Double
        var loadBefore: Double
        var loadAfter: Double
        var droppedCount: Int { dropped.values.reduce(0, +) }
    }

    /// Records on `rig` for at least `seconds`, running `during` meanwhile (it may take longer).
    static func record(on rig: RunningTripod, seconds: Double, during: () throws -> Void) throws -> Result {
        for line in ["format 1920x1080@30"] {
            guard rig.ask(line)?.hasPrefix("ok") == true else { throw HardwareError(.invalidArgument, "collect: recording rig refused \(line)") }
        }
        let before = Set(RecordingSoakBenchmark.sidecars(under: URL(fileURLWithPath: rig.captures)).map(\.id))
        let loadBefore = SimulatedRecordingRun.loadAverage()
        guard let started = rig.ask("record start"), started.hasPrefix("ok") else {
            throw HardwareError(.invalidArgument, "collect: record start refused")
        }
        let until = Date().addingTimeInterval(seconds)
        try during()
        // The recording's length (what is measured is its own count, not this wait).
        while Date() < until { usleep(100_000) }
        let loadAfter = SimulatedRecordingRun.loadAverage()
        guard rig.ask("record stop")?.hasPrefix("ok") == true else { throw HardwareError(.invalidArgument, "collect: record stop refused") }
        var sidecar: VideoSidecarSummary?
        guard waitUntil(seconds: 120, {
            sidecar = RecordingSoakBenchmark.sidecars(under: URL(fileURLWithPath: rig.captures)).first { !before.contains($0.id) }
                .map(VideoSidecarSummary.init)
            return sidecar != nil
        }), let sidecar else { throw HardwareError(.timeout, "collect: no sidecar of the recording") }
        return Result(framesWritten: sidecar.framesWritten, dropped: sidecar.dropped, sequenceSpan: sidecar.sequenceSpan,
                      seconds: sidecar.seconds, loadBefore: loadBefore, loadAfter: loadAfter)
    }
}

/// What the bench reads of a video sidecar.
struct VideoSidecarSummary {
    var framesWritten: Int
    var dropped: [String: Int]
    var sequenceSpan: Int
    var seconds: Double

    init(_ sidecar: VideoSidecar) {
        framesWritten = sidecar.framesWritten
        dropped = Dictionary(grouping: sidecar.droppedFrames, by: \.cause.rawValue).mapValues(\.count)
        sequenceSpan = Int(sidecar.lastSequence - sidecar.firstSequence) + 1
        seconds = Double(sidecar.lastSensorTimestampNanoseconds - sidecar.firstSensorTimestampNanoseconds) / 1e9
    }
}

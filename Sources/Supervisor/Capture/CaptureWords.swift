import Camera
import Capture
import Console
import Foundation
import Hardware
import Media

// The capture service's and the time-lapse's typed errors and events, in the console's words:
// the one place they are worded (replies, `bracket.*`, `button.*`, `timelapse.*`).

extension ConsoleError {
    /// A capture error as `err <code> <message>`.
    public init(_ error: CaptureError) {
        let code: Code = switch error.kind {
        case .usage: .usage
        case .badValue: .badValue
        case .outOfRange: .outOfRange
        case .unsupported: .unsupported
        case .busy: .busy
        case .device: .device
        }
        self.init(code, error.message)
    }
}

extension CaptureError {
    /// A console error met while reading bracket words for the capture service (a preset's, a
    /// time-lapse's action): the bracket parser's codes (usage, bad-value, out-of-range) keep theirs.
    init(_ error: ConsoleError) {
        let kind: Kind = switch error.code {
        case .usage: .usage
        case .outOfRange: .outOfRange
        case .unsupported: .unsupported
        case .busy: .busy
        case .device: .device
        default: .badValue
        }
        self.init(kind, error.message)
    }
}

extension BracketCommandParser {
    /// The parser as the capture service and the time-lapse read bracket words.
    static func read(_ arguments: [String]) throws(CaptureError) -> BracketPlan {
        do throws(ConsoleError) { return try parse(arguments) } catch { throw CaptureError(error) }
    }
}

extension CaptureStart {
    /// The reply of `capture`, `bracket ...` and the like.
    public var replyFields: [(String, String)] {
        switch self {
        case .queued: [("bracket", "queued")]
        case .waitingForFirstFrame: [("bracket", "waiting"), ("for", "first frame")]
        case .started(let started): [("bracket", "started")] + started.fields
        }
    }
}

extension PreparedStills {
    /// The reply of `prepare`.
    public var replyFields: [(String, String)] {
        [("prepared", "yes"), ("still", "\(still.width)x\(still.height)"),
         ("raw", raw.map { "\($0.width)x\($0.height)" } ?? "none"),
         ("bracket.max", String(maximumFrames)), ("buffers", "+\(buffersPerStream)/stream"),
         ("setup.ms", String(format: "%.1f", Double(setup.nanoseconds) / 1e6))]
    }
}

extension BracketStarted {
    /// plan, frames, lag.ms (pending while the first request waits for a buffer), shot and at.
    var fields: [(String, String)] {
        var fields: [(String, String)] = [("plan", planSummary), ("frames", String(frames)),
                                          ("lag.ms", lag.map { String(format: "%.3f", Double($0.nanoseconds) / 1e6) } ?? "pending")]
        if let shot { fields += [("shot", shot.id), ("at", shot.target)] }
        return fields
    }
}

extension CaptureTrigger {
    /// The trigger as events name it.
    var word: String {
        switch self {
        case .button: "button"
        case .console: "console"
        case .timelapse: "timelapse"
        }
    }
}

extension ConsoleEvent {
    /// A capture event as `event bracket.* ...` or `event button.* ...`.
    public init(_ event: CaptureEvent) {
        switch event {
        case .buttonQueued(let action):
            self.init("button.queued", [("action", action.description)])
        case .buttonRejected(let action, let reason):
            self.init("button.rejected", [("action", action.description), ("reason", reason)])
        case .autofocusFailed(let reason):
            self.init("button.error", [("action", "af"), ("reason", reason)])
        case .bracketStarted(let started):
            self.init("bracket.started", started.fields + [("trigger", started.trigger.word)])
        case .frameSaved(let saved):
            let record = saved.record
            self.init("bracket.frame", [
                ("id", saved.bracketID ?? "?"), ("frame", "\(saved.frame)/\(max(saved.total, saved.frame))"),
                ("exposure", record.actual.map { ValueParser.formatShutter(.microseconds($0.exposureTimeMicroseconds)) } ?? "unreported"),
                ("iso", record.actual.map { String($0.iso) } ?? "unreported"), ("clamped", record.clampedSettings ? "yes" : "no"),
                ("files", record.files.map(\.name).joined(separator: ",")),
            ] + (record.focus.map { [("lens", String(format: "%.3fD", $0.lensPositionDioptres))] } ?? []))
        case .bracketDone(let done):
            var fields: [(String, String)] = [("id", done.bracketID), ("frames", String(done.framesSaved)),
                                              ("sensor.frames", String(done.statistics.sensorFramesUsed)),
                                              ("skipped", String(done.statistics.framesSkipped)), ("retakes", String(done.statistics.retakes)),
                                              ("lag.ms", String(format: "%.3f", Double(done.lag.nanoseconds) / 1e6))]
            if let shot = done.shot {
                fields += [("shot", shot.id), ("offset.us", shot.offsetMicroseconds.map { String(format: "%.1f", $0) } ?? "none")]
            }
            if let path = done.sidecarPath { fields.append(("sidecar", path)) }
            self.init("bracket.done", fields)
        case .bracketFailed(let failure):
            self.init("bracket.failed", [("id", failure.bracketID ?? "none"), ("reason", failure.reason), ("kept", String(failure.framesKept))]
                      + (failure.trigger.map { [("trigger", $0.word)] } ?? []))
        case .storeFailed(let reason):
            self.init("capture.error", [("reason", reason)])
        case .gyroLogFailed(let path, let reason):
            self.init("gyrolog.failed", [("path", path), ("reason", reason)])
        }
    }

    /// A time-lapse event as `event timelapse.* ...`.
    public init(_ event: TimelapseEvent) {
        switch event {
        case .started(let plan, let framesPerShot):
            self.init("timelapse.started", [("plan", plan.summary), ("frames.per.shot", String(framesPerShot))])
        case .resumed(let saved):
            self.init("timelapse.resumed", [("plan", saved.plan.summary), ("next", String(saved.nextShot)),
                                            ("taken", String(saved.taken)), ("missed", String(saved.missed))])
        case .notResumed(let reason, let taken):
            self.init("timelapse.stopped", [("reason", "not resumed: \(reason)"), ("taken", String(taken))])
        case .stopped(let finished, let reason):
            self.init("timelapse.stopped", TimelapseEvent.stoppedFields(finished, reason: reason))
        case .missed(let shots, let reason):
            let text = shots.lowerBound == shots.upperBound ? String(shots.upperBound) : "\(shots.lowerBound)-\(shots.upperBound)"
            self.init("timelapse.missed", [("shots", text), ("reason", reason)])
        case .shot(let shot):
            self.init("timelapse.shot", shot.fields)
        case .error(let reason):
            self.init("timelapse.error", [("reason", reason)])
        }
    }
}

extension TimelapseEvent {
    /// taken, missed, failed and why: `timelapse.stopped`'s fields and `timelapse stop`'s reply.
    static func stoppedFields(_ finished: TimelapseState, reason: String) -> [(String, String)] {
        [("taken", String(finished.taken)), ("missed", String(finished.missed)), ("failed", String(finished.failed)), ("reason", reason)]
    }
}

extension TimelapseShot {
    /// shot (n or n/last), id, the first frame's exposure and ISO, the ramp's metering, missed.
    var fields: [(String, String)] {
        var fields: [(String, String)] = [("shot", String(shot)), ("id", sidecar.id)]
        if let lastShot { fields[0].1 += "/\(lastShot)" }
        if let first = sidecar.frames.first?.actual {
            fields += [("exposure", ValueParser.formatShutter(.microseconds(first.exposureTimeMicroseconds))), ("iso", String(first.iso))]
        }
        if let m = metering {
            fields += [("target.ev", String(format: "%.3f", m.targetEV)), ("shot.ev", String(format: "%.3f", m.shotEV)),
                       ("correction.ev", String(format: "%+.3f", m.correctionEV)), ("median", String(format: "%.4f", m.median)),
                       ("midtone", String(format: "%.4f", m.midtone)), ("highlight", String(format: "%.4f", m.highlight))]
        }
        return fields + [("missed", String(missed))]
    }
}

/// Runs `body`, a call into the capture service, with its error in the console's words.
func worded<T>(_ body: () throws(CaptureError) -> T) throws(ConsoleError) -> T {
    do throws(CaptureError) { return try body() } catch { throw ConsoleError(error) }
}

import Camera
import Capture
import Console
import Foundation
import Hardware
import Recording
import Settings
import Triggers
import Video

/// Triggers beyond the button (docs/triggers.md): motion in the picture and what a trigger does.
/// The supervisor owns one; it lives on the loop. Detection and the policy are module Triggers'
/// (typed); here they meet the services and become console events.
final class TriggerState {
    var detector = MotionDetector()
    var policy = TriggerPolicy()
    /// True while the last frame showed motion (events go out on the rising edge only).
    var motionShowing = false
    /// Frames the detector has looked at since start (the no-false-trigger test checks it saw them all).
    var framesExamined = 0
    /// The thumbnail's size: 160×120 cells.
    static let thumbnailWidth = 160, thumbnailHeight = 120
}

extension Supervisor {
    /// The `trigger.*` settings' part of a change: the recorder keeps a frame-exact pre-roll while
    /// triggers may start recordings, and the detector takes its zones, threshold and area.
    func applyTriggerPart(_ change: SettingsChange) throws(ConsoleError) {
        guard change.touches(any: SettingsTable.trigger) || change.touches(any: SettingsTable.recording) else { return }
        // Without a camera the recorder waits: the recording keys are applied again once it streams.
        if camera != nil { try worded { () throws(RecorderError) in try recorder.setTriggerPreroll(Self.triggersRecord(change.new.trigger)) } }
        triggers.detector.reconfigure(change.new.trigger.detectorConfiguration)
        if change.old.trigger.motion != change.new.trigger.motion { triggers.detector.reset(); triggers.motionShowing = false }
    }

    /// True when a trigger's action is a recording (the recorder then keeps the pre-roll as frames).
    static func triggersRecord(_ settings: TriggerSettings) -> Bool {
        if case .record = settings.action { return true }
        return false
    }

    /// Every streaming frame: a triggered recording that is due ends, and motion detection looks at it.
    func triggerFrameArrived(_ completed: CompletedRequest) {
        let state = triggers
        if state.policy.recordingEnds != nil, recorder.isRecording != true { state.policy.recordingEnded() }
        if state.policy.recordingShouldStop(atFrame: completed.sensorTimestamp), recorder.isRecording {
            do throws(RecorderError) { _ = try recorder.stop() } catch {
                broadcast(ConsoleEvent("trigger.error", [("action", "record"), ("reason", error.message)]))
            }
        }
        guard typed.trigger.motion, let camera, let thumbnail = Self.thumbnail(of: completed, camera: camera) else { return }
        let seen = state.detector.observe(thumbnail)
        state.framesExamined += 1
        let rising = seen.triggered && !state.motionShowing
        state.motionShowing = seen.triggered
        guard seen.triggered else { return }
        if rising {
            broadcast(ConsoleEvent(SettingsTable.triggerMotion.key, [("zone", String(seen.zoneIndex + 1)),
                                                      ("area", ValueParser.formatNumber((seen.areaFraction * 1000).rounded() / 10) + "%"),
                                                      ("sequence", String(completed.sequence))]))
        }
        triggered(Trigger(source: .motion, sequence: completed.sequence, sensorTimestamp: completed.sensorTimestamp,
                          minuteOfDay: minuteOfDay(completed)))
    }

    /// The smallest readable picture of the frame: the processed stream's smaller copy, else the
    /// video stream (YUV420), else the processed stream.
    static func thumbnail(of completed: CompletedRequest, camera: CameraController) -> LumaThumbnail? {
        let processed = completed.buffers[camera.processedRole]
        let candidates = [processed?.smaller, completed.buffers[.videoRecording], processed]
        for case let buffer? in candidates where LumaThumbnail.canRead(buffer.pixelFormat) {
            if let t = LumaThumbnail(buffer, width: TriggerState.thumbnailWidth, height: TriggerState.thumbnailHeight) { return t }
        }
        return nil
    }

    /// Local minutes after midnight at the frame (its FrameWallClock, else the wall clock now).
    private func minuteOfDay(_ completed: CompletedRequest) -> Int {
        let date = completed.metadata[ControlName.frameWallClock]?.int64Value.map { Date(timeIntervalSince1970: Double($0) / 1e9) }
            ?? services.wallClock()
        let parts = Calendar.current.dateComponents([.hour, .minute], from: date)
        return (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
    }

    /// Listens to the PIR sensor's line (board `gpio.pir`): each rising edge is a trigger. Edges
    /// come on libgpiod's reader thread and hop onto the loop.
    func startPIR() {
        guard let line = devices.pir else { return }
        let bound = self.bound
        line.setEdgeHandler { edge in
            guard edge.kind == .rising else { return }
            bound.loop.execute { bound.value?.pirActivated(at: edge.timestamp) }
        }
        line.setFailureHandler { error in
            bound.loop.execute { bound.value?.broadcast(ConsoleEvent("trigger.error", [("source", "pir"), ("reason", "line failed: \(error.message)")])) }
        }
    }

    /// The PIR line went active: the trigger frame is the newest frame (its sequence and
    /// SensorTimestamp), so a recording's pre-roll counts back from it.
    func pirActivated(at edgeTime: MonotonicTime) {
        guard let latest = camera?.latestRequest else {
            broadcast(ConsoleEvent("trigger.pir", [("frame", "none")]))
            return
        }
        broadcast(ConsoleEvent("trigger.pir", [("sequence", String(latest.sequence)),
                                               ("edge.ms", ValueParser.formatNumber(Double((edgeTime - latest.sensorTimestamp).nanoseconds / 100_000) / 10))]))
        triggered(Trigger(source: .pir, sequence: latest.sequence, sensorTimestamp: latest.sensorTimestamp, minuteOfDay: minuteOfDay(latest)))
    }

    /// One trigger (motion here; a PIR line or the button the same way): the policy decides, the action runs.
    func triggered(_ trigger: Trigger) {
        let settings = typed.trigger
        guard case .fire(let action) = triggers.policy.decide(trigger, settings: settings) else { return }
        var fields: [(String, String)] = [("source", trigger.source.rawValue), ("action", action.description),
                                          ("sequence", String(trigger.sequence))]
        do throws(ConsoleError) {
            fields += try run(action, for: trigger)
            broadcast(ConsoleEvent("trigger.fired", fields))
        } catch {
            if case .record = action { triggers.policy.recordingEnded() }
            broadcast(ConsoleEvent("trigger.error", fields + [("reason", error.message)]))
        }
    }

    /// Runs a trigger's action; returns the fields its event adds (the file or bracket).
    private func run(_ action: TriggerAction, for trigger: Trigger) throws(ConsoleError) -> [(String, String)] {
        switch action {
        case .off:
            return []
        case .capture, .bracket:
            let service = captureService
            var plan = BracketPlan.single
            if case .bracket(let preset) = action { plan = try worded { () throws(CaptureError) in try service.presetPlan(named: preset) } }
            let reply = try worded { () throws(CaptureError) in try service.start(plan, trigger: .console, triggeredAt: trigger.sensorTimestamp) }.replyFields
            return reply.filter { $0.0 == "bracket" || $0.0 == "id" || $0.0 == "file" }
        case .record:
            if recorder.isRecording { throw ConsoleError(.busy, "already recording \(recorder.recordingID ?? "")") }
            let video = VideoTrigger(source: trigger.source.rawValue, sequence: trigger.sequence,
                                     sensorTimestampNanoseconds: trigger.sensorTimestamp.nanoseconds,
                                     prerollFrames: recorder.triggerPrerollFrames)
            let reply = try startRecording(trigger: video)
            return reply.filter { $0.0 == "recording" || $0.0 == "file" } + [("preroll.frames", String(video.prerollFrames))]
        }
    }
}

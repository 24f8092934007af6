import Camera
import Console
import Hardware
import Motion
import Stabilization
import Video
import Capture
import Recording
import Settings

extension Supervisor {
    /// Adds `record start|stop` (the recorder is made in Composition.swift).
    func registerRecordingCommands() {
        commands.add(Command("record", synopsis: "start|stop",
                             summary: "record video (video.* settings) until record stop",
                             detail: ["start: H.264 (or MJPEG) in MP4 or MKV, PTS from each frame's SensorTimestamp,",
                                      "with a sidecar JSON, timecodes and a Gyroflow .gcsv beside it; with",
                                      "\(SettingsTable.videoPrerecord.key) the file begins that many seconds before the command.",
                                      "stop: finalises the file; events record.file and record.stopped",
                                      "(or record.failed). quit and SIGTERM finalise a recording too."],
                             arguments: 1...1) { context, args in
            let s = context.supervisor
            do throws(ConsoleError) {
                switch args[0].lowercased() {
                case "start": return .ok(try s.startRecording())
                case "stop":
                    let recorder = try s.recorderOrThrow()
                    return .ok([("stopping", try worded { () throws(RecorderError) in try recorder.stop() })])
                default: throw ConsoleError(.usage, "record start|stop")
                }
            } catch { return .error(error) }
        })
    }

    private func recorderOrThrow() throws(ConsoleError) -> VideoRecorder {
        return recorder
    }

    /// Starts a recording (console and button), labelled with the stabilization state in force;
    /// returns the reply fields.
    func startRecording(shot: VideoShot? = nil, trigger: VideoTrigger? = nil) throws(ConsoleError) -> [(String, String)] {
        try beginRecording(shot: shot, trigger: trigger).fields
    }

    /// Starts a recording, labelled with the stabilization state in force; returns what started.
    func beginRecording(shot: VideoShot? = nil, trigger: VideoTrigger? = nil) throws(ConsoleError) -> RecordingStarted {
        guard state == .ready else { throw ConsoleError(.busy, "tripod is \(state.rawValue)") }
        let recorder = try recorderOrThrow()
        if let running = captureService.running {
            throw ConsoleError(.busy, "a bracket is running (\(running.id ?? running.plan.summary)); record after bracket.done")
        }
        let capture = VideoCaptureState(stabilizationPreferred: typed.stabilization.videoPreferred.rawValue,
                                        stabilizationActive: stabilization?.video.active.rawValue ?? "off",
                                        hdr: videoHDR.inForce?.description ?? "off")
        let mapping = try? AxisMapping(devices.board.imu.orientation ?? "XYZ")
        return try worded { () throws(RecorderError) in 
            try recorder.start(capture: capture, axisMapping: devices.imu == nil ? nil : mapping,
                               readoutMilliseconds: GyroLogMaker.readoutMilliseconds(camera), shot: shot, trigger: trigger)
        }
    }

    /// Pushes the `video.*` settings to the recorder (start, and every change of them).
    func applyVideoSettings(_ video: VideoSettings) throws(ConsoleError) {
        try worded { () throws(RecorderError) in try recorder.apply(video) }
    }

    /// Blocks until the recorder's encoder queue has done what it was given (benchmarks and tests
    /// that drive the manual clock faster than real time; the events still hop to the loop).
    public func waitForRecorder() { recorder.drainEncoder() }

    /// Recording fields for `status`.
    func recordingStatusFields() -> [(String, String)] {
        recorder.statusFields()
    }
}

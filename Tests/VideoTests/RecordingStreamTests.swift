import Foundation
import Hardware
import Motion
import Testing
@testable import Video

/// Splits, pre-record and the Gyroflow log: files joined end to end hold every frame once.
@Suite struct RecordingStreamTests {
    @Test(arguments: [VideoSettings.Container.mp4, .mkv])
    func splitFilesStartAtAKeyframeAndLoseOrDoubleNoFrame(container: VideoSettings.Container) throws {
        let harness = try RecordingHarness()
        var settings = VideoSettings()
        settings.container = container
        settings.splitMinutes = 1.0 / 60  // one second per file
        try harness.service.configure(settings)
        try harness.service.start(RecordingRequest(id: "SPLIT", folder: "d", axisMapping: try AxisMapping("XYZ")))
        let times = sensorTimes(count: 100)  // 3.3 s: four files
        // IMU samples every 10 ms arrive with the frames (from 1 s before the first).
        var nextSample = times[0].nanoseconds - 1_000_000_000
        for (i, time) in times.enumerated() {
            var samples: [IMUSample] = []
            while nextSample <= time.nanoseconds {
                samples.append(IMUSample(timestamp: MonotonicTime(nanoseconds: nextSample), gyro: Vector3(0, 0, 1), accel: Vector3(0, 0, 0)))
                nextSample += 10_000_000
            }
            harness.service.submitMotion(samples)
            try harness.feed([UInt64(i)], [time])
        }
        try harness.service.stop()
        #expect(harness.stops.first?.error == nil)

        let sidecars = harness.sidecars
        #expect(sidecars.map(\.part) == [1, 2, 3, 4])
        #expect(sidecars.map(\.file) == ["SPLIT", "SPLIT-2", "SPLIT-3", "SPLIT-4"].map { "\($0).\(container.fileExtension)" })
        #expect(sidecars.reduce(0) { $0 + $1.framesWritten } == 100)
        var expectedSequence: UInt64 = 0
        for sidecar in sidecars {
            // Continuity: each file starts with the frame after the previous file's last.
            #expect(sidecar.firstSequence == expectedSequence)
            expectedSequence = sidecar.lastSequence + 1
            #expect(sidecar.firstSensorTimestampNanoseconds == times[Int(sidecar.firstSequence)].nanoseconds)
            let probe = try probe(harness.path("d/\(sidecar.file)"))
            #expect(probe.framePTS.count == sidecar.framesWritten)
            let fileTimes = times[Int(sidecar.firstSequence)...Int(sidecar.lastSequence)]
            let expected = fileTimes.map { ($0 - fileTimes.first!).nanoseconds / 1000 }
            #expect(probe.framePTS == (container == .mp4 ? expected : expected.map { Int64((Double($0) / 1000).rounded()) }))
            // Each part has its own Gyroflow log with t = 0 at its first frame, from 0.5 s before.
            let gcsv = try String(contentsOfFile: harness.path("d/\(try #require(sidecar.gyroLogFile))"), encoding: .utf8)
            let t = gcsv.split(separator: "\n").drop { $0 != "t,gx,gy,gz,ax,ay,az" }.dropFirst().compactMap { Int64($0.split(separator: ",")[0]) }
            #expect(t.first.map { $0 <= -490_000 && $0 >= -500_000 } == true)
            #expect(t.last.map { $0 >= expected.last! - 10_000 } == true)  // samples were given up to the last frame
        }
        #expect(expectedSequence == 100)
        // Each split lands on the first frame at least a second after the file's start.
        for (a, b) in zip(sidecars, sidecars.dropFirst()) {
            #expect(b.firstSensorTimestampNanoseconds - a.firstSensorTimestampNanoseconds >= 1_000_000_000)
            #expect(times[Int(b.firstSequence) - 1].nanoseconds - a.firstSensorTimestampNanoseconds < 1_000_000_000)
        }
    }

    @Test func prerecordCoversAtLeastTheWindowBeforeTheTrigger() throws {
        let harness = try RecordingHarness()
        var settings = VideoSettings()
        settings.prerecordSeconds = 2
        try harness.service.configure(settings)
        let times = sensorTimes(count: 180)  // 6 s
        try harness.feed((0..<150).map(UInt64.init), Array(times[0..<150]))
        #expect(harness.service.status.state == .prerecording)
        let ringBytes = harness.service.status.prerecordBytes
        #expect(ringBytes > 0)
        let trigger = times[149]
        try harness.service.start(RecordingRequest(id: "PRE", folder: "d"))
        try harness.feed((150..<180).map(UInt64.init), Array(times[150..<180]))
        try harness.service.stop()
        #expect(harness.stops.first?.error == nil)

        let sidecar = try #require(harness.sidecars.first)
        // From the oldest keyframe in the window: ≥ 2 s before the trigger, < 2 s + one GOP.
        let before = trigger.nanoseconds - sidecar.firstSensorTimestampNanoseconds
        #expect(before >= 2_000_000_000 && before < 3_100_000_000)
        #expect(sidecar.lastSequence == 179 && sidecar.framesWritten == Int(179 - sidecar.firstSequence + 1))
        let probe = try probe(harness.path("d/PRE.mp4"))
        let fileTimes = times[Int(sidecar.firstSequence)...]
        #expect(probe.framePTS == fileTimes.map { ($0 - fileTimes.first!).nanoseconds / 1000 })
        // After the stop the ring fills again for the next trigger.
        #expect(harness.service.status.state == .prerecording)
    }

    @Test func gyroflowLogBesideTheVideoStartsAtTheFirstFrame() throws {
        let harness = try RecordingHarness()
        try harness.service.configure(VideoSettings())
        let times = sensorTimes(count: 30)
        // 200 Hz of samples from 1 s before the first frame to 1 s after the last.
        let samples = stride(from: times[0].nanoseconds - 1_000_000_000, to: times[29].nanoseconds + 1_000_000_000, by: 5_000_000).map {
            IMUSample(timestamp: MonotonicTime(nanoseconds: $0), gyro: Vector3(0.1, -0.2, 0.3), accel: Vector3(0, 0, standardGravity))
        }
        harness.service.submitMotion(samples)
        try harness.service.start(RecordingRequest(id: "GYRO", folder: "d", axisMapping: try AxisMapping("yXz"),
                                                   frameReadoutMilliseconds: 16.5, firmwareVersion: "tripod test"))
        try harness.feed((0..<30).map(UInt64.init), times)
        try harness.service.stop()
        let sidecar = try #require(harness.sidecars.first)
        #expect(sidecar.gyroLogFile == "GYRO.gcsv")
        let text = try String(contentsOfFile: harness.path("d/GYRO.gcsv"), encoding: .utf8)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.contains("orientation,yXz") && lines.contains("frame_readout_time,16.5"))
        #expect(lines.contains("videofilename,GYRO.mp4"))
        let rows = lines.drop { $0 != "t,gx,gy,gz,ax,ay,az" }.dropFirst().compactMap { Int64($0.split(separator: ",")[0]) }
        // t in µs from the first frame, from 0.5 s before it.
        #expect(rows.first.map { $0 <= -495_000 && $0 >= -500_000 } == true)
        // It covers the whole video: every sample given up to the stop, 5 ms apart.
        let videoEnd = (times[29] - times[0]).nanoseconds / 1000
        #expect(rows.last.map { $0 >= videoEnd + 995_000 } == true)
        #expect(zip(rows, rows.dropFirst()).allSatisfy { $1 - $0 == 5_000 })
        #expect(rows.contains { abs($0) < 5000 })
    }

    @Test func ringKeepsWholeGroupsCoveringTheWindowWithinItsByteBound() {
        func packet(_ i: Int, key: Bool, bytes: Int = 100) -> EncodedPacket {
            EncodedPacket(bytes: [UInt8](repeating: 0, count: bytes), isKeyframe: key,
                          frame: FrameInfo(sequence: UInt64(i), sensorTimestamp: MonotonicTime(nanoseconds: Int64(i) * 100_000_000)))
        }
        var ring = PrerecordRing(window: .seconds(1), maximumBytes: 10_000)
        ring.append(packet(0, key: false))  // no keyframe yet: nothing to start from
        #expect(ring.packets.isEmpty)
        for i in 1...35 { ring.append(packet(i, key: i % 5 == 0)) }
        // Newest at 3.5 s; the oldest kept keyframe must be at or before 2.5 s, the next after it.
        #expect(ring.packets.first?.isKeyframe == true)
        #expect(ring.packets.first?.sequence == 25)
        #expect(ring.byteCount == ring.packets.count * 100)
        var small = PrerecordRing(window: .seconds(10), maximumBytes: 1_000)
        for i in 0..<40 { small.append(packet(i, key: i % 5 == 0)) }
        #expect(small.byteCount <= 1_000 && small.packets.first?.isKeyframe == true && small.trimmedForBytes > 0)
        let taken = small.takeAll()
        #expect(!taken.isEmpty && small.byteCount == 0 && small.packets.isEmpty)
    }
}

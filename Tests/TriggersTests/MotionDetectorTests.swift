import Testing
import Hardware
@testable import Triggers

/// A 160×120 picture: a textured background (a chart-like pattern) at a light level, with noise,
/// optionally a dark block, shifted by whole cells.
private func picture(level: Double = 1, noise: UInt64? = nil, block: (x: Int, y: Int, w: Int, h: Int)? = nil, shiftX: Int = 0) -> LumaThumbnail {
    let w = 160, h = 120
    var values = [UInt8](repeating: 0, count: w * h)
    var state = noise ?? 1
    for y in 0..<h {
        for x in 0..<w {
            let sx = x + shiftX
            var v = 60.0 + 80.0 * Double(((sx / 10) + (y / 10)) % 2) + Double(sx % 7)
            if let b = block, x >= b.x, x < b.x + b.w, y >= b.y, y < b.y + b.h { v = 20 }
            v *= level
            if noise != nil {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                v += Double(Int((state >> 33) % 9) - 4)  // ±4 levels
            }
            values[y * w + x] = UInt8(clamping: Int(v.rounded()))
        }
    }
    return LumaThumbnail(width: w, height: h, values: values)
}

@Suite struct MotionDetectorTests {
    @Test func aSolidObjectTriggersAfterTheWarmUpAndNoiseAloneNever() {
        var d = MotionDetector()
        for k in 0..<60 {
            let o = d.observe(picture(noise: UInt64(k + 1)))
            #expect(!o.triggered, "frame \(k): noise only, area \(o.areaFraction)")
        }
        let o = d.observe(picture(noise: 99, block: (40, 40, 24, 20)))
        #expect(o.triggered)
        #expect(o.areaFraction > 0.015 && o.areaFraction < 0.03)
    }

    @Test func aSlowAndAFastChangeOfLightDoNotTrigger() {
        var d = MotionDetector()
        // 0.5 → 1.5 over 600 frames (a sunrise), then a 20 % step (AE) in one frame.
        for k in 0..<600 {
            let o = d.observe(picture(level: 0.5 + Double(k) / 600, noise: UInt64(k + 1)))
            #expect(!o.triggered, "ramp frame \(k): area \(o.areaFraction)")
        }
        let o = d.observe(picture(level: 1.2, noise: 7))
        #expect(!o.triggered, "step: area \(o.areaFraction)")
    }

    @Test func aShiftOfTheWholePictureByACellDoesNotTriggerThroughErosionOrGlobalChange() {
        var d = MotionDetector()
        for k in 0..<30 { _ = d.observe(picture(noise: UInt64(k + 1))) }
        let o = d.observe(picture(noise: 5, shiftX: 1))
        #expect(!o.triggered, "area \(o.areaFraction)")
    }

    /// A shake of several cells is found and taken out before comparing (the 3×3 range of the
    /// background covers a shift of one cell only, so the shift above passes without it): a 3-cell
    /// shift does not trigger, and the offset compensated is the picture's.
    @Test func aShakeOfThreeCellsIsFoundAndTakenOut() {
        var d = MotionDetector()
        for k in 0..<30 { _ = d.observe(picture(noise: UInt64(k + 1))) }
        let o = d.observe(picture(noise: 5, shiftX: 3))
        #expect(!o.triggered && !o.globalChange, "area \(o.areaFraction)")
        #expect(d.lastShift.dx == 3, "\(d.lastShift)")
    }

    @Test func onlyTheZoneCounts() {
        var c = MotionDetector.Configuration()
        c.zones = [MotionZone(x: 0.5, y: 0, width: 0.5, height: 1)]
        var d = MotionDetector(configuration: c)
        for k in 0..<30 { _ = d.observe(picture(noise: UInt64(k + 1))) }
        #expect(!d.observe(picture(noise: 50, block: (10, 40, 30, 30))).triggered, "left half: outside the zone")
        var e = MotionDetector(configuration: c)
        for k in 0..<30 { _ = e.observe(picture(noise: UInt64(k + 1))) }
        let o = e.observe(picture(noise: 50, block: (100, 40, 30, 30)))
        #expect(o.triggered && o.zoneIndex == 0)
    }

    @Test func anObjectThatStopsBecomesBackground() {
        var d = MotionDetector()
        for k in 0..<30 { _ = d.observe(picture(noise: UInt64(k + 1))) }
        var last = true
        for k in 0..<400 { last = d.observe(picture(noise: UInt64(k + 100), block: (40, 40, 30, 30))).triggered }
        #expect(!last)
    }

    @Test func thumbnailsAverageBlocksOfEachFormat() throws {
        // A 640×480 YUV420 frame, left half 50, right half 200.
        let w = 640, h = 480
        var bytes = [UInt8](repeating: 128, count: w * h * 3 / 2)
        for y in 0..<h { for x in 0..<w { bytes[y * w + x] = x < w / 2 ? 50 : 200 } }
        let yuv = FrameBuffer(pixelFormat: .yuv420, size: PixelSize(width: w, height: h), stride: w, bytes: bytes)
        let t = try #require(LumaThumbnail(yuv, width: 160, height: 120))
        #expect(t.values[0] == 50 && t.values[159] == 200)
        // BGR888: B=0, G=100, R=200 → (0 + 200 + 200) / 4 = 100.
        var bgr = [UInt8](repeating: 0, count: w * h * 3)
        for i in 0..<(w * h) { bgr[3 * i + 1] = 100; bgr[3 * i + 2] = 200 }
        let rgbFrame = FrameBuffer(pixelFormat: .bgr888, size: PixelSize(width: w, height: h), stride: w * 3, bytes: bgr)
        let u = try #require(LumaThumbnail(rgbFrame, width: 160, height: 120))
        #expect(u.values.allSatisfy { $0 == 100 })
        #expect(LumaThumbnail(rgbFrame, width: 800, height: 120) == nil)
    }
}

@Suite struct TriggerSettingsTests {
    @Test func textsRoundTripAndBadOnesSayWhy() throws {
        #expect(try MotionZone.parseList("0,0,1,1").map(\.description) == ["0,0,1,1"])
        let zones = try MotionZone.parseList("0,0.5,0.5,0.5; 0.5,0,0.5,0.25")
        #expect(zones.count == 2 && zones[1].description == "0.5,0,0.5,0.25")
        #expect(throws: TriggerSettingError.self) { try MotionZone.parseList("0.6,0,0.5,1") }
        #expect(throws: TriggerSettingError.self) { try MotionZone.parseList("0,0,1") }
        #expect(try TriggerAction.parse("record 30") == .record(seconds: 30))
        #expect(try TriggerAction.parse("record 30").description == "record 30")
        #expect(try TriggerAction.parse("bracket hdr5") == .bracket(preset: "hdr5"))
        #expect(throws: TriggerSettingError.self) { try TriggerAction.parse("record 0") }
        #expect(throws: TriggerSettingError.self) { try TriggerAction.parse("explode") }
        let night = try TriggerSchedule.parse("18:00-07:00")
        #expect(night.description == "18:00-07:00")
        #expect(night.admits(minuteOfDay: 23 * 60) && night.admits(minuteOfDay: 6 * 60 + 59))
        #expect(!night.admits(minuteOfDay: 12 * 60) && !night.admits(minuteOfDay: 7 * 60) && !night.admits(minuteOfDay: nil))
        #expect(throws: TriggerSettingError.self) { try TriggerSchedule.parse("25:00-07:00") }
    }
}

@Suite struct TriggerPolicyTests {
    private func at(_ seconds: Double, _ sequence: UInt64 = 0, minute: Int? = 600) -> Trigger {
        Trigger(source: .motion, sequence: sequence, sensorTimestamp: MonotonicTime(nanoseconds: Int64(seconds * 1e9)), minuteOfDay: minute)
    }

    @Test func cooldownScheduleAndOff() {
        var s = TriggerSettings()
        var p = TriggerPolicy()
        #expect(p.decide(at(1), settings: s) == .ignored(.actionOff))
        s.action = .capture
        s.cooldownSeconds = 10
        #expect(p.decide(at(1), settings: s) == .fire(.capture))
        #expect(p.decide(at(10.9), settings: s) == .ignored(.cooldown))
        #expect(p.decide(at(11), settings: s) == .fire(.capture))
        s.schedule = .window(startMinute: 18 * 60, endMinute: 7 * 60)
        #expect(p.decide(at(100, minute: 12 * 60), settings: s) == .ignored(.schedule))
        #expect(p.decide(at(100, minute: 2 * 60), settings: s) == .fire(.capture))
    }

    @Test func aTriggeredRecordingEndsASetTimeAfterTheLastTrigger() {
        var s = TriggerSettings()
        s.action = .record(seconds: 5)
        var p = TriggerPolicy()
        #expect(p.decide(at(10), settings: s) == .fire(.record(seconds: 5)))
        #expect(p.decide(at(12), settings: s) == .extended(until: MonotonicTime(nanoseconds: 17_000_000_000)))
        let early = p.recordingShouldStop(atFrame: MonotonicTime(nanoseconds: 16_999_999_999))
        let due = p.recordingShouldStop(atFrame: MonotonicTime(nanoseconds: 17_000_000_000))
        let again = p.recordingShouldStop(atFrame: MonotonicTime(nanoseconds: 18_000_000_000))
        #expect(!early && due && !again)
    }
}

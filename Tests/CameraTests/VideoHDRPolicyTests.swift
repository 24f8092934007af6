import Testing
@testable import Camera

/// `video.hdr`'s decisions: forced on/off, auto from the scene with hysteresis, formats without HDR.
@Suite struct VideoHDRPolicyTests {
    static let wide = VideoHDRPolicy.SceneMeasure(clippedFraction: 0.05, crushedFraction: 0.08)
    static let middling = VideoHDRPolicy.SceneMeasure(clippedFraction: 0.01, crushedFraction: 0.03)
    static let narrow = VideoHDRPolicy.SceneMeasure(clippedFraction: 0.0, crushedFraction: 0.001)

    @Test func autoSwitchesOnAfterAHighContrastStretchAndBackAfterACalmOne() throws {
        var policy = VideoHDRPolicy()
        policy.formatChanged(hasHDR: true)
        var switchedOn: Int?
        for i in 1...30 where switchedOn == nil { if policy.sceneMeasured(Self.wide) { switchedOn = i } }
        #expect((5...15).contains(switchedOn ?? 0), "on after a few high-contrast frames, not the first: \(switchedOn ?? 0)")
        #expect(policy.isActive)
        // Between the thresholds nothing changes, however long it lasts.
        for _ in 0..<500 { let changed = policy.sceneMeasured(Self.middling); #expect(!changed) }
        #expect(policy.isActive)
        var switchedOff: Int?
        for i in 1...100 where switchedOff == nil { if policy.sceneMeasured(Self.narrow) { switchedOff = i } }
        #expect((10...60).contains(switchedOff ?? 0), "off after a calm stretch, not the first frame: \(switchedOff ?? 0)")
        #expect(!policy.isActive)
    }

    @Test func aFlickeringSceneDoesNotFlap() throws {
        var policy = VideoHDRPolicy()
        policy.formatChanged(hasHDR: true)
        var changes = 0
        for i in 0..<1000 { if policy.sceneMeasured(i % 10 == 0 ? Self.narrow : Self.wide) { changes += 1 } }
        #expect(changes == 1, "on once, and the odd calm frame never switches it off")
        #expect(policy.isActive)
    }

    @Test func forcedValuesWinAndAutoResumesItsChoice() throws {
        var policy = VideoHDRPolicy()
        policy.formatChanged(hasHDR: true)
        for _ in 0..<15 { policy.sceneMeasured(Self.wide) }
        try policy.setPreference(.off)
        #expect(!policy.isActive)
        try policy.setPreference(.on)
        #expect(policy.isActive)
        for _ in 0..<100 { policy.sceneMeasured(Self.narrow) }
        #expect(policy.isActive, "forced on ignores the scene")
        try policy.setPreference(.auto)
        #expect(!policy.isActive, "auto's own choice, made meanwhile: off")
    }

    @Test func aFormatWithoutHDRRefusesOnAndDropsAForcedOn() throws {
        var policy = VideoHDRPolicy()
        policy.formatChanged(hasHDR: false)
        #expect(throws: CameraError.self) { try policy.setPreference(.on) }
        for _ in 0..<100 { policy.sceneMeasured(Self.wide) }
        #expect(!policy.isActive, "auto on a format without HDR stays off")
        policy.formatChanged(hasHDR: true)
        try policy.setPreference(.on)
        let dropped = policy.formatChanged(hasHDR: false)
        #expect(dropped, "a forced on goes back to auto, and says so")
        #expect(policy.preference == .auto && !policy.isActive)
    }
}

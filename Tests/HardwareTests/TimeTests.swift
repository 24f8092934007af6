import Testing
@testable import Hardware

@Suite struct TimeTests {
    @Test func durationConversions() {
        #expect(Duration.milliseconds(16).nanoseconds == 16_000_000)
        #expect(Duration.nanoseconds(16_666_667).microseconds == 16_667)
        #expect(Duration.seconds(-2).nanoseconds == -2_000_000_000)
        #expect(abs(Duration.milliseconds(250).secondsValue - 0.25) < 1e-12)
    }

    @Test func monotonicArithmetic() {
        let t = MonotonicTime(nanoseconds: 1_000)
        #expect((t + .microseconds(2)).nanoseconds == 3_000)
        #expect((t + .microseconds(2)) - t == .microseconds(2))
        #expect(t < t + .nanoseconds(1))
    }

    @Test func storagePathsStayInsideRoot() throws {
        for bad in ["", "/etc/passwd", "../x", "a/../../b", "a//b", ".hidden", "a/./b", "a\0b"] {
            #expect(throws: HardwareError.self) { try validateStoragePath(bad) }
        }
        try validateStoragePath("2026-11-29/IMG_0001.dng")
    }
}

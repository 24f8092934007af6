import Testing
@testable import Units

/// `ValueText`: how durations, spans and numbers read in replies, sidecars and messages.
@Suite struct ValueTextTests {
    /// Below a second a shutter reads as a fraction when it is one (within 1e-4 of a whole
    /// reciprocal), else in milliseconds; from a second up, in seconds.
    @Test func shutterDurationsReadAsPhotographersWriteThem() {
        #expect(ValueText.shutter(.seconds(1.0 / 60)) == "1/60")
        #expect(ValueText.shutter(.microseconds(16_667)) == "1/60", "rounded to the microsecond, still 1/60")
        #expect(ValueText.shutter(.milliseconds(250)) == "1/4")
        #expect(ValueText.shutter(.nanoseconds(125_000)) == "1/8000")
        #expect(ValueText.shutter(.seconds(1.0 / 3)) == "1/3")
        #expect(ValueText.shutter(.milliseconds(300)) == "300ms", "1/3.33 is no fraction")
        #expect(ValueText.shutter(.milliseconds(3)) == "3ms")
        #expect(ValueText.shutter(.microseconds(1500)) == "1.5ms")
        #expect(ValueText.shutter(.seconds(1)) == "1s")
        #expect(ValueText.shutter(.milliseconds(2500)) == "2.5s")
        #expect(ValueText.shutter(.seconds(30)) == "30s")
    }

    /// No exposure at all, or a negative one, reads "0", never "1/0" or a negative fraction.
    @Test func aZeroOrNegativeShutterReadsZero() {
        #expect(ValueText.shutter(.zero) == "0")
        #expect(ValueText.shutter(.milliseconds(-5)) == "0")
    }

    /// Whole seconds from a minute up read as hours, minutes and seconds, leaving out the zero
    /// parts; below a minute, or with a fraction, as seconds (to the millisecond).
    @Test func spansReadAsHoursMinutesAndSeconds() {
        #expect(ValueText.span(.zero) == "0s")
        #expect(ValueText.span(.milliseconds(500)) == "0.5s")
        #expect(ValueText.span(.seconds(10)) == "10s")
        #expect(ValueText.span(.milliseconds(59_999)) == "59.999s")
        #expect(ValueText.span(.seconds(60)) == "1m")
        #expect(ValueText.span(.seconds(90)) == "1m30s")
        #expect(ValueText.span(.milliseconds(90_500)) == "90.5s", "a fraction stays in seconds")
        #expect(ValueText.span(.seconds(3600)) == "1h")
        #expect(ValueText.span(.seconds(5400)) == "1h30m")
        #expect(ValueText.span(.seconds(3661)) == "1h1m1s")
        #expect(ValueText.span(.seconds(3605)) == "1h5s")
        #expect(ValueText.span(.seconds(86_400)) == "24h", "no days")
        #expect(ValueText.span(.microseconds(60_000_400)) == "1m", "below a millisecond is rounded away")
    }

    /// At most three decimals, no trailing zeros, and whole numbers without a point (but with
    /// their own zeros: 100, not 1).
    @Test func numbersHaveAtMostThreeDecimalsAndNoTrailingZeros() {
        #expect(ValueText.number(2) == "2")
        #expect(ValueText.number(100) == "100")
        #expect(ValueText.number(2.5) == "2.5")
        #expect(ValueText.number(0.1 + 0.2) == "0.3")
        #expect(ValueText.number(1.23456) == "1.235")
        #expect(ValueText.number(2.0004) == "2")
        #expect(ValueText.number(0.25) == "0.25")
        #expect(ValueText.number(-1.5) == "-1.5")
        #expect(ValueText.number(-7) == "-7")
        #expect(ValueText.number(123_456.7) == "123456.7")
    }

    /// What rounds to zero reads "0", never "-0"; numbers from 1e15 up read whole (no bare point)
    /// or in Swift's exponent form, unrounded; infinities and NaN read as Swift writes them, never
    /// trapping in the Int64 conversion.
    @Test func edgeNumbers() {
        #expect(ValueText.number(0) == "0")
        #expect(ValueText.number(0.0004) == "0")
        #expect(ValueText.number(-0.0004) == "0")
        #expect(ValueText.number(123_456_789_012) == "123456789012")
        #expect(ValueText.number(1e15) == "1000000000000000", "a whole number past the Int64 path keeps no bare point")
        #expect(ValueText.number(5e15) == "5000000000000000")
        #expect(ValueText.number(1e15 + 0.5) == "1000000000000000.5")
        #expect(ValueText.number(1e20) == "1e+20", "not blurred by the rounding to three decimals")
        #expect(ValueText.number(-1e20) == "-1e+20")
        #expect(ValueText.number(.infinity) == "inf")
        #expect(ValueText.number(-.infinity) == "-inf")
        #expect(ValueText.number(.nan) == "nan")
    }

    /// A duration's seconds as a Double, attoseconds included, for either sign.
    @Test func durationsInSeconds() {
        #expect(Duration.seconds(2).secondsValue == 2)
        #expect(Duration.milliseconds(1500).secondsValue == 1.5)
        #expect(Duration.milliseconds(-1500).secondsValue == -1.5)
        #expect(Duration.nanoseconds(1).secondsValue == 1e-9)
        #expect(Duration.zero.secondsValue == 0)
    }
}

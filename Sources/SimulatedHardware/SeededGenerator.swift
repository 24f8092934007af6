import Foundation

/// SplitMix64: a small deterministic generator, so a seed reproduces a motion profile, IMU noise
/// and every simulated frame bit for bit.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// A standard normal deviate (Box–Muller).
    public mutating func gaussian() -> Double {
        let u = Double.random(in: Double.ulpOfOne..<1, using: &self), v = Double.random(in: 0..<1, using: &self)
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }
    /// Uniform in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
    /// Zero-mean, unit-variance triangular noise (sum of two 32-bit uniforms from one draw).
    mutating func noise() -> Double {
        let bits = next()
        let sum = Double(bits & 0xFFFF_FFFF) + Double(bits >> 32)
        return (sum / 4_294_967_296 - 1) * 2.449_489_742_783_178
    }
}

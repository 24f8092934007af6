import Foundation
import Hardware

/// `sim object cross [SPEED] [SIZE]`: an animal-sized, textured blob that walks across the picture
/// from left to right, drawn over the scene planes of each frame (so it is lit, exposed and noisy
/// like the chart) after the rig's motion (it moves in the picture, not with the chart).
///
/// It steps out at the left edge whole: the first frame that starts at or after `entersAt` shows
/// all of it, its left side on the frame's left edge (an animal leaving cover), and it goes on at
/// `widthsPerSecond` until it has left on the right.
public struct SimulatedCrossingObject: Hashable, Sendable {
    /// The start of the first frame that shows it.
    public var entersAt: MonotonicTime
    /// Frame widths per second.
    public var widthsPerSecond: Double
    /// Its height as a share of the frame's height (its width is 1.6 times that, in pixels).
    public var heightFraction: Double

    public init(entersAt: MonotonicTime, widthsPerSecond: Double, heightFraction: Double) {
        self.entersAt = entersAt; self.widthsPerSecond = widthsPerSecond; self.heightFraction = heightFraction
    }

    /// Where it is in a frame that starts at `time`: its left edge as a share of the frame's width;
    /// nil before it enters and once it has left.
    public func leftEdge(at time: MonotonicTime) -> Double? {
        guard time >= entersAt else { return nil }
        let x = (time - entersAt).secondsValue * widthsPerSecond
        return x < 1 ? x : nil
    }

    /// Draws it into `planes` (scene reflectance, every plane alike: dark with pale blotches).
    func draw(into planes: inout ScenePlanes, leftEdge: Double) {
        let w = planes.size.width, h = planes.size.height
        let ry = heightFraction * Double(h) / 2, rx = 1.6 * ry
        let cx = leftEdge * Double(w) + rx, cy = 0.62 * Double(h)
        let x0 = max(0, Int(cx - rx)), x1 = min(w, Int(cx + rx) + 1)
        let y0 = max(0, Int(cy - ry)), y1 = min(h, Int(cy + ry) + 1)
        guard x0 < x1, y0 < y1 else { return }
        let planeSize = w * h, count = planes.planeCount
        // The texture is fixed to the body (it moves with it): coarse blotches, 1/6 of its height.
        let cell = max(2.0, ry / 3)
        planes.values.withUnsafeMutableBufferPointer { v in
            for j in y0..<y1 {
                let ny = (Double(j) - cy) / ry
                for i in x0..<x1 {
                    let nx = (Double(i) - cx) / rx
                    guard nx * nx + ny * ny <= 1 else { continue }
                    let u = Int(((Double(i) - cx + rx) / cell).rounded(.down)), t = Int(((Double(j) - cy + ry) / cell).rounded(.down))
                    let hash = (UInt32(truncatingIfNeeded: u &* 73_856_093) ^ UInt32(truncatingIfNeeded: t &* 19_349_663)) % 7
                    // Dark fur with pale blotches: whatever is behind it, much of it differs.
                    let reflectance: Float = hash < 3 ? 0.55 + 0.05 * Float(hash) : 0.03 + 0.01 * Float(hash)
                    let p = j * w + i
                    for plane in 0..<count { v[plane * planeSize + p] = reflectance }
                }
            }
        }
    }
}

extension SimulatedCamera {
    /// `sim object cross`: the object enters in the next frame. Returns that frame's sequence.
    /// Throws when the camera is not streaming or the values are out of range.
    public func crossObject(widthsPerSecond: Double, heightFraction: Double) throws(HardwareError) -> UInt64 {
        guard widthsPerSecond > 0, widthsPerSecond <= 10, widthsPerSecond.isFinite else {
            throw HardwareError(.invalidArgument, "speed \(widthsPerSecond): frame widths per second, above 0 and at most 10")
        }
        guard heightFraction >= 0.02, heightFraction <= 0.8 else {
            throw HardwareError(.invalidArgument, "size \(heightFraction): a share of the frame's height, 0.02…0.8")
        }
        let upcoming = upcomingFrame
        guard let start = upcoming.start else { throw HardwareError(.busy, "the simulated camera is not streaming") }
        scene.crossing = SimulatedCrossingObject(entersAt: start, widthsPerSecond: widthsPerSecond, heightFraction: heightFraction)
        return upcoming.sequence
    }
}

import Foundation
import Hardware

/// How the simulated scene's light changes with time: `sim light sunset|sunrise DURATION` and
/// `sim light steady`. The level is an exposure offset, EV, from the scene's daylight grey
/// luminance (`SimulatedScene.greyLuminanceCandelasPerSquareMetre`): 0 is day, `nightEV` night.
///
/// A change moves the level from where it is to its end over the duration along a raised cosine
/// (½ − ½·cos πt/T): slow at both ends, fastest half-way, as twilight is, and smooth, so that a
/// ramp's rate limit and smoothing are tested rather than a step. Evaluated at each frame's start
/// on the camera's clock, so a manual clock makes an hour's sunset pass in a test's seconds.
public struct SimulatedLight: Hashable, Sendable {
    /// Night's level below day, EV: about the drop from daylight to a clear night under a bright
    /// moon (14 EV, as the time-lapse references plan a day-to-night ramp for).
    public static let nightEV = -14.0

    /// The level when the change began, EV.
    public var fromEV: Double
    /// The level the change ends at, EV.
    public var toEV: Double
    /// When the change began (the camera's clock).
    public var start: MonotonicTime
    /// How long it takes; zero for a steady light.
    public var duration: Duration

    /// A change from `fromEV` to `toEV`, beginning at `start` and lasting `duration`.
    public init(fromEV: Double, toEV: Double, start: MonotonicTime, duration: Duration) {
        self.fromEV = fromEV; self.toEV = toEV; self.start = start; self.duration = duration
    }

    /// A light that stays at `ev`.
    public static func steady(_ ev: Double = 0) -> SimulatedLight {
        SimulatedLight(fromEV: ev, toEV: ev, start: MonotonicTime(nanoseconds: 0), duration: .zero)
    }

    /// The level at `time`, EV from day.
    public func levelEV(at time: MonotonicTime) -> Double {
        guard duration > .zero else { return toEV }
        guard time > start else { return fromEV }
        let t = min(Double((time - start).nanoseconds) / Double(duration.nanoseconds), 1)
        return fromEV + (toEV - fromEV) * (0.5 - 0.5 * cos(Double.pi * t))
    }

    /// What `sim light NAME [DURATION]` makes at `now` from the light in force: `sunset` moves to
    /// night, `sunrise` to day, each over `duration`; `steady` holds the level reached.
    public static func change(_ name: String, duration: Duration?, from current: SimulatedLight,
                              at now: MonotonicTime) throws(HardwareError) -> SimulatedLight {
        let level = current.levelEV(at: now)
        switch name {
        case "steady":
            return .steady(level)
        case "sunset", "sunrise":
            guard let duration, duration > .zero else {
                throw HardwareError(.invalidArgument, "sim light \(name) needs a duration, e.g. sim light \(name) 1h")
            }
            return SimulatedLight(fromEV: level, toEV: name == "sunset" ? nightEV : 0, start: now, duration: duration)
        default:
            throw HardwareError(.invalidArgument, "light \(name): use sunset DURATION, sunrise DURATION or steady")
        }
    }
}

extension SimulatedScene {
    /// The scene as lit at `time`: the grey's luminance scaled by the light's level then.
    public func lit(at time: MonotonicTime) -> SimulatedScene {
        let level = light.levelEV(at: time)
        guard level != 0 else { return self }
        var scene = self
        scene.greyLuminanceCandelasPerSquareMetre *= pow(2, level)
        return scene
    }
}

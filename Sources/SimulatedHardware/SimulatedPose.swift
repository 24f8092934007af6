import Foundation
import Hardware

/// Where the simulated rig stands and what it looks at, in the object scene's world (metres; x
/// east, y north, z up; the turntable's axis is the z axis, the ground is z = 0). The camera is
/// level (no roll): its x axis (right) is horizontal, its y axis points down the image, its z axis
/// (the optical axis) from `positionMetres` toward `lookAtMetres` (docs/photogrammetry.md).
public struct SimulatedPose: Hashable, Sendable {
    public var positionMetres: SIMD3<Double>
    public var lookAtMetres: SIMD3<Double>

    /// The largest coordinate `sim pose` takes, metres (the backdrop is 3.5 m away).
    public static let coordinateLimitMetres = 100.0
    /// The pose `sim scene object` starts with: 1.6 m south of the object, 0.9 m up, looking at it.
    public static let standard = SimulatedPose(positionMetres: SIMD3(0, -1.6, 0.9), lookAtMetres: SIMD3(0, 0, 0.35))

    public init(positionMetres: SIMD3<Double>, lookAtMetres: SIMD3<Double>) {
        self.positionMetres = positionMetres
        self.lookAtMetres = lookAtMetres
    }

    /// `X,Y,Z lookat X,Y,Z` (metres), as `sim pose` and the config file's `sim.pose` write it.
    public init(parsing text: String) throws(HardwareError) {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard words.count == 3, words[1].lowercased() == "lookat" else {
            throw HardwareError(.invalidArgument, "pose \"\(text)\": write X,Y,Z lookat X,Y,Z (metres, e.g. 1.6,0,0.9 lookat 0,0,0.35)")
        }
        let position = try Self.point(words[0], role: "position")
        let lookAt = try Self.point(words[2], role: "lookat point")
        let forward = lookAt - position
        let length = (forward * forward).sum().squareRoot()
        guard length >= 0.01 else {
            throw HardwareError(.invalidArgument, "pose \"\(text)\": the lookat point must be at least 1 cm from the position")
        }
        guard (forward.x * forward.x + forward.y * forward.y).squareRoot() >= 1e-3 * length else {
            throw HardwareError(.invalidArgument, "pose \"\(text)\": looking straight up or down leaves the camera's roll undefined; move the lookat point sideways")
        }
        self.init(positionMetres: position, lookAtMetres: lookAt)
    }

    private static func point(_ word: String, role: String) throws(HardwareError) -> SIMD3<Double> {
        let parts = word.split(separator: ",", omittingEmptySubsequences: false)
        let values = parts.compactMap { Double($0) }
        guard parts.count == 3, values.count == 3 else {
            throw HardwareError(.invalidArgument, "pose: \(role) \"\(word)\" is not three numbers X,Y,Z (metres)")
        }
        guard values.allSatisfy({ $0.isFinite && abs($0) <= coordinateLimitMetres }) else {
            throw HardwareError(.invalidArgument, "pose: \(role) \"\(word)\": each coordinate from -\(Int(coordinateLimitMetres)) to \(Int(coordinateLimitMetres)) m")
        }
        return SIMD3(values[0], values[1], values[2])
    }

    /// The canonical text: `X,Y,Z lookat X,Y,Z`.
    public var text: String {
        func point(_ p: SIMD3<Double>) -> String { [p.x, p.y, p.z].map { Self.number($0) }.joined(separator: ",") }
        return point(positionMetres) + " lookat " + point(lookAtMetres)
    }

    /// `value` to the micrometre, whole numbers without a point; never traps (a value not made by
    /// parsing may be anything: it prints as Swift does, e.g. inf).
    static func number(_ value: Double) -> String {
        let rounded = (value * 1e6).rounded() / 1e6
        return rounded == rounded.rounded() && abs(rounded) < 1e15 ? String(Int(rounded)) : String(rounded)
    }

    /// The camera's axes in the world: right (x), down (y), forward (z). Rows of the rotation that
    /// takes world vectors into the camera frame.
    public var axes: (right: SIMD3<Double>, down: SIMD3<Double>, forward: SIMD3<Double>) {
        let forward = Self.normalised(lookAtMetres - positionMetres)
        let right = Self.normalised(Self.cross(forward, SIMD3(0, 0, 1)))
        return (right, Self.cross(forward, right), forward)
    }

    /// A world point in the camera frame (x right, y down, z forward), metres.
    public func cameraPoint(_ world: SIMD3<Double>) -> SIMD3<Double> {
        let a = axes, v = world - positionMetres
        return SIMD3((a.right * v).sum(), (a.down * v).sum(), (a.forward * v).sum())
    }

    /// Where a world point images through a pinhole of focal length `focalLengthPixels` with its
    /// principal point at `centre` (pixels); nil behind the camera.
    public func project(_ world: SIMD3<Double>, focalLengthPixels f: Double, centre: SIMD2<Double>) -> SIMD2<Double>? {
        let p = cameraPoint(world)
        guard p.z > 1e-9 else { return nil }
        return SIMD2(centre.x + f * p.x / p.z, centre.y + f * p.y / p.z)
    }

    static func cross(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
    }

    static func normalised(_ v: SIMD3<Double>) -> SIMD3<Double> {
        let length = (v * v).sum().squareRoot()
        return length > 0 ? v / length : v
    }
}

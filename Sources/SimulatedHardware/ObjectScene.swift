import Foundation

/// `sim scene object`: a textured object on a turntable at the origin, on a textured ground,
/// inside a textured round backdrop, for photogrammetry (docs/photogrammetry.md).
///
/// World metres, z up, the ground at z = 0. The object: a box 0.5 × 0.4 × 0.6 m centred on the
/// z axis, and beside it a cylinder 0.12 m in radius and 0.4 m high; both turn about the z axis at
/// `spinDegreesPerSecond` (a turntable), the ground and the backdrop (a cylinder 3.5 m in radius and
/// 3 m high) stay. Every surface carries its own `ProceduralTexture`; above the backdrop is an even
/// grey. Surfaces are evenly lit (Lambertian, no shadows), so what a camera sees does not depend on
/// where it stands.
public struct ObjectScene: Hashable, Sendable {
    /// Turntable speed, degrees per second (positive: counter-clockwise seen from above).
    public var spinDegreesPerSecond: Double = 0
    /// The object's turn at the frame being drawn, degrees (set per frame from its exposure time).
    public var rotationDegrees: Double = 0

    public init(spinDegreesPerSecond: Double = 0) { self.spinDegreesPerSecond = spinDegreesPerSecond }

    /// The fastest turntable `sim scene object spin` takes, degrees per second.
    public static let spinLimitDegreesPerSecond = 3600.0

    /// The object's turn at `wallClockNanoseconds` (CLOCK_REALTIME): spin × time, in [0, 360). Rigs of
    /// one fleet share the wall clock, so they agree on where the object is at any instant.
    public func rotationDegrees(atWallClockNanoseconds t: Int64) -> Double {
        guard spinDegreesPerSecond != 0 else { return 0 }
        // Whole seconds and the rest apart, so the product keeps its precision.
        let seconds = Double(t / 1_000_000_000), rest = Double(t % 1_000_000_000) / 1e9
        let whole = (seconds * spinDegreesPerSecond).truncatingRemainder(dividingBy: 360)
        let angle = (whole + rest * spinDegreesPerSecond).truncatingRemainder(dividingBy: 360)
        return angle < 0 ? angle + 360 : angle
    }

    // Geometry, metres.
    static let boxHalfExtents = SIMD3(0.25, 0.2, 0.3)  // x, y half sizes; z: half the height
    static let cylinderCentre = SIMD2(0.42, 0.12), cylinderRadius = 0.12, cylinderHeight = 0.4
    static let backdropRadius = 3.5, backdropHeight = 3.0
    /// Linear sRGB radiance above the backdrop (an even grey ceiling).
    static let ceiling = SIMD3<Float>(repeating: 0.5)

    /// The scene's surfaces' textures, drawn once per process (deterministic).
    static let textures = Textures()

    final class Textures: Sendable {
        /// Box faces: −x, +x, −y, +y, top.
        let box: [ProceduralTexture]
        let cylinderSide: ProceduralTexture
        let cylinderTop: ProceduralTexture
        let ground: ProceduralTexture
        let backdrop: ProceduralTexture

        init() {
            let e = ObjectScene.boxHalfExtents
            func object(_ w: Double, _ h: Double, _ seed: UInt64) -> ProceduralTexture {
                ProceduralTexture(widthMetres: w, heightMetres: h, metresPerTexel: 0.0015, smallestRadiusMetres: 0.003,
                                  largestRadiusMetres: 0.08, seed: seed)
            }
            box = [object(2 * e.y, 2 * e.z, 11), object(2 * e.y, 2 * e.z, 12), object(2 * e.x, 2 * e.z, 13),
                   object(2 * e.x, 2 * e.z, 14), object(2 * e.x, 2 * e.y, 15)]
            cylinderSide = object(2 * .pi * ObjectScene.cylinderRadius, ObjectScene.cylinderHeight, 16)
            cylinderTop = object(2 * ObjectScene.cylinderRadius, 2 * ObjectScene.cylinderRadius, 17)
            let r = ObjectScene.backdropRadius
            ground = ProceduralTexture(widthMetres: 2 * r, heightMetres: 2 * r, metresPerTexel: 0.004, smallestRadiusMetres: 0.008,
                                       largestRadiusMetres: 0.35, seed: 18)
            backdrop = ProceduralTexture(widthMetres: 2 * .pi * r, heightMetres: ObjectScene.backdropHeight, metresPerTexel: 0.006,
                                         smallestRadiusMetres: 0.012, largestRadiusMetres: 0.45, seed: 19)
        }
    }

    /// What a ray from `origin` along `direction` (world) sees: linear sRGB radiance relative to a
    /// white diffuser, and the distance along the ray to it (metres, times |direction|).
    /// `turn` is the object's rotation (cos, sin).
    static func trace(origin o: SIMD3<Double>, direction d: SIMD3<Double>, turn: (cos: Double, sin: Double),
                      textures t: Textures) -> (colour: SIMD3<Float>, distance: Double) {
        var nearest = Double.infinity
        var colour = ceiling
        // The backdrop, from inside: the far root of |o.xy + s d.xy| = R.
        let a = d.x * d.x + d.y * d.y
        if a > 0 {
            let b = o.x * d.x + o.y * d.y, c = o.x * o.x + o.y * o.y - backdropRadius * backdropRadius
            let disc = b * b - a * c
            if disc >= 0 {
                let s = (-b + disc.squareRoot()) / a
                let z = o.z + s * d.z
                if s > 0, z >= 0, z <= backdropHeight {
                    nearest = s
                    let p = o + s * d
                    let angle = atan2(p.y, p.x) + .pi
                    colour = t.backdrop.colour(u: angle * backdropRadius, v: z)
                } else if s > 0, z > backdropHeight {
                    nearest = s
                }
            }
        }
        // The ground.
        if d.z < 0 {
            let s = -o.z / d.z
            if s > 0, s < nearest {
                let p = o + s * d
                if p.x * p.x + p.y * p.y <= backdropRadius * backdropRadius {
                    nearest = s
                    colour = t.ground.colour(u: p.x + backdropRadius, v: p.y + backdropRadius)
                }
            }
        }
        // The object, in its own (turned) frame: rotate the ray by −turn about z.
        let lo = SIMD3(o.x * turn.cos + o.y * turn.sin, -o.x * turn.sin + o.y * turn.cos, o.z)
        let ld = SIMD3(d.x * turn.cos + d.y * turn.sin, -d.x * turn.sin + d.y * turn.cos, d.z)
        if let hit = box(origin: lo, direction: ld, textures: t), hit.distance < nearest {
            nearest = hit.distance
            colour = hit.colour
        }
        if let hit = cylinder(origin: lo, direction: ld, textures: t), hit.distance < nearest {
            nearest = hit.distance
            colour = hit.colour
        }
        return (colour, nearest)
    }

    /// The box: slabs; the face hit is the one whose slab was entered last.
    private static func box(origin o: SIMD3<Double>, direction d: SIMD3<Double>, textures t: Textures) -> (colour: SIMD3<Float>, distance: Double)? {
        let e = boxHalfExtents
        let low = SIMD3(-e.x, -e.y, 0), high = SIMD3(e.x, e.y, 2 * e.z)
        var enter = -Double.infinity, exit = Double.infinity, axis = 0
        for k in 0..<3 {
            if d[k] == 0 {
                if o[k] < low[k] || o[k] > high[k] { return nil }
                continue
            }
            let s0 = (low[k] - o[k]) / d[k], s1 = (high[k] - o[k]) / d[k]
            let near = min(s0, s1), far = max(s0, s1)
            if near > enter { enter = near; axis = k }
            exit = min(exit, far)
        }
        guard enter <= exit, enter > 0 else { return nil }
        let p = o + enter * d
        let colour: SIMD3<Float>
        switch axis {
        case 0: colour = t.box[d.x > 0 ? 0 : 1].colour(u: p.y + e.y, v: p.z)
        case 1: colour = t.box[d.y > 0 ? 2 : 3].colour(u: p.x + e.x, v: p.z)
        default: colour = t.box[4].colour(u: p.x + e.x, v: p.y + e.y)
        }
        return (colour, enter)
    }

    /// The cylinder: its side (the near root) or its top.
    private static func cylinder(origin o: SIMD3<Double>, direction d: SIMD3<Double>, textures t: Textures) -> (colour: SIMD3<Float>, distance: Double)? {
        let c = cylinderCentre, r = cylinderRadius
        let ox = o.x - c.x, oy = o.y - c.y
        var best: (colour: SIMD3<Float>, distance: Double)?
        let a = d.x * d.x + d.y * d.y
        if a > 0 {
            let b = ox * d.x + oy * d.y, cc = ox * ox + oy * oy - r * r
            let disc = b * b - a * cc
            if disc >= 0 {
                let s = (-b - disc.squareRoot()) / a
                let z = o.z + s * d.z
                if s > 0, z >= 0, z <= cylinderHeight {
                    let angle = atan2(oy + s * d.y, ox + s * d.x) + .pi
                    best = (t.cylinderSide.colour(u: angle * r, v: z), s)
                }
            }
        }
        if d.z < 0 {
            let s = (cylinderHeight - o.z) / d.z
            let x = ox + s * d.x, y = oy + s * d.y
            if s > 0, x * x + y * y <= r * r, s < (best?.distance ?? .infinity) {
                best = (t.cylinderTop.colour(u: x + r, v: y + r), s)
            }
        }
        return best
    }
}

import Hardware
import Motion
import Video

/// Video stabilization of a recording, done on the recorded frames: each frame leaves with a
/// rotation warp (`YUVRotationWarp`, run on the encoder queue) from the camera's orientation while
/// each of its row bands was exposed (the rolling shutter reads row r at SensorTimestamp + r ×
/// line time) to the view the path planner chose, and with the record the sidecar lists (the
/// correction, and whether the margin limited it). Standard decides each frame at once;
/// cinematic `lookaheadFrames` later, so frames wait here until then (0.5 s at 30 fps, in
/// memory). Loop-confined.
public final class RecordingStabilizer {
    private let planner: RotationPathPlanner
    /// The warp geometry for a frame size (nil: the optics are unknown, frames pass unwarped).
    private let geometryFor: (PixelSize) -> WarpGeometry?
    /// The camera's orientation (body to world) at a time; nil when the IMU's history lacks it.
    private let orientationAt: (MonotonicTime) -> Quaternion?
    /// Threads each frame's warp is shared between on the encoder queue.
    private let warpThreads: Int
    private var held: [VideoFrame] = []
    private var geometry: WarpGeometry?

    public init(planner: RotationPathPlanner, geometry: @escaping (PixelSize) -> WarpGeometry?,
                orientationAt: @escaping (MonotonicTime) -> Quaternion?, warpThreads: Int = 2) {
        self.planner = planner; geometryFor = geometry; self.orientationAt = orientationAt; self.warpThreads = warpThreads
    }

    /// Frames held for the look-ahead.
    public var heldFrames: Int { held.count }
    /// The most frames it holds (cinematic's look-ahead; 0 for standard).
    public var lookaheadFrames: Int { planner.lookaheadFrames }
    /// The mode's crop margin.
    public var margin: Double { planner.margin }

    /// Adds the next frame; returns the frames whose warps are now decided, oldest first.
    public func push(_ frame: VideoFrame) -> [VideoFrame] {
        held.append(frame)
        if geometry?.size != frame.size { geometry = geometryFor(frame.size).map { var g = $0; g.margin = planner.margin; return g } }
        return release(planner.push(time: middle(of: frame), orientationAt: orientationAt))
    }

    /// The frames still held, with views smoothed over what is known (end of the recording).
    public func flush() -> [VideoFrame] {
        let out = release(planner.flush(orientationAt: orientationAt))
        defer { held.removeAll() }
        return out + held
    }

    /// The middle of the frame's exposure at its middle row.
    private func middle(of frame: VideoFrame) -> MonotonicTime {
        rowTime(of: frame, row: Double(frame.size.height) / 2)
    }

    /// When `row` (from the top, pixels) was exposed: the middle of its exposure.
    private func rowTime(of frame: VideoFrame, row: Double) -> MonotonicTime {
        WarpGeometry.rowTime(row, start: frame.sensorTimestamp, exposureMicroseconds: frame.exposure?.exposureTimeMicroseconds ?? 0,
                             lineNanoseconds: geometry?.lineNanoseconds ?? 0)
    }

    private func release(_ targets: [RotationPathPlanner.Target]) -> [VideoFrame] {
        var out: [VideoFrame] = []
        for target in targets where !held.isEmpty {
            var frame = held.removeFirst()
            if let geometry, geometry.size == frame.size { stabilize(&frame, target: target, geometry: geometry) }
            out.append(frame)
        }
        return out
    }

    /// The time step over which a band's motion is taken (`slanted`).
    static let rateStep = Duration.milliseconds(2)

    /// A band's homography with its rolling shutter across the row: when the view turns the band
    /// (a roll, say), its output row reads source rows that differ along x, exposed earlier or
    /// later; each column's source point moves on by the camera's motion over that time (from
    /// `later`, the band's map `rateStep` on), to first order in the column.
    static func slanted(_ h: Homography, later: Homography, y: Double, lineNanoseconds: Double) -> Homography {
        guard let p = h.apply(0, y), let q = later.apply(0, y), let across = h.apply(1, y) else { return h }
        let perNanosecond = (q - p) / Double(rateStep.nanoseconds)
        let slope = across.y - p.y  // source rows per output column
        let move = perNanosecond * (slope * lineNanoseconds)  // source pixels per output column
        var out = h
        out.row0.x += move.x * h.row2.z
        out.row1.x += move.y * h.row2.z
        return out
    }

    /// Chooses the frame's view within the margin and gives it its warp and record.
    private func stabilize(_ frame: inout VideoFrame, target: RotationPathPlanner.Target, geometry: WarpGeometry) {
        // Each band's source rows: where its middle output row lands under the target view.
        let middleMap = geometry.homography(camera: target.camera, view: target.view)
        let halfHeight = Double(geometry.size.height) / 2
        let cameras: [(at: Quaternion, later: Quaternion)] = (0..<geometry.bandCount).map { b in
            let y = middleMap.apply(0, geometry.bandCentreY(b))?.y ?? geometry.bandCentreY(b)
            let row = min(max(y + halfHeight, 0), Double(geometry.size.height))
            let at = orientationAt(rowTime(of: frame, row: row)) ?? target.camera
            let later = orientationAt(rowTime(of: frame, row: row) + Self.rateStep) ?? at
            return (at, later)
        }
        func bands(_ view: Quaternion) -> [Homography] {
            cameras.enumerated().map { b, camera in
                Self.slanted(geometry.homography(camera: camera.at, view: view), later: geometry.homography(camera: camera.later, view: view),
                             y: geometry.bandCentreY(b), lineNanoseconds: geometry.lineNanoseconds)
            }
        }
        let eased = RotationPathPlanner.ease(target, geometry: geometry, bands: bands)
        planner.shown(eased.view)
        let correction = (target.camera.conjugate * eased.view).normalized.rotationVector * (180 / .pi)
        frame.warp = YUVRotationWarp(geometry: geometry, bands: bands(eased.view), threads: warpThreads)
        frame.stabilized = StabilizedFrame(sequence: frame.sequence, correctionDegrees: [correction.x, correction.y, correction.z],
                                           marginUse: eased.use.isFinite ? eased.use : 99, marginHit: eased.hit)
    }
}

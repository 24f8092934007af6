import Hardware
import Motion

/// The stabilized picture the previews (the viewfinder, the remote's preview) show while a
/// recording warps its own frames (the ScalerCrop is paused then, so the streaming frames are
/// unstabilized). A preview cannot wait for cinematic's look-ahead, so it follows the causal
/// (standard) path, framed with the recording mode's margin, as phones' previews do. It warps the
/// frame's smaller copy when it has one (`FrameBuffer.smaller`), lazily: on the thread that
/// first reads the bytes (the display's or the preview encoder's), never on the loop.
/// Loop-confined.
public final class PreviewStabilizer {
    private let planner: RotationPathPlanner
    private let margin: Double
    private let geometryFor: (PixelSize) -> WarpGeometry?
    private let orientationAt: (MonotonicTime) -> Quaternion?

    /// `margin`: the recording mode's.
    public init(margin: Double, geometry: @escaping (PixelSize) -> WarpGeometry?,
                orientationAt: @escaping (MonotonicTime) -> Quaternion?) throws(StabilizationError) {
        planner = try RotationPathPlanner(mode: .standard)
        self.margin = margin; geometryFor = geometry; self.orientationAt = orientationAt
    }

    /// The frame to show for `buffer` (exposed from `sensorTimestamp` for `exposureMicroseconds`):
    /// its warped smaller copy (or itself warped), or `buffer` when it is not packed RGB or the
    /// optics are unknown.
    public func frame(for buffer: FrameBuffer, sensorTimestamp: MonotonicTime, exposureMicroseconds: Double) -> FrameBuffer {
        let source = buffer.smaller ?? buffer
        guard let bytesPerPixel = PackedRotationWarp.bytesPerPixel(source.pixelFormat),
              var geometry = geometryFor(source.size) else { return buffer }
        geometry.margin = margin
        func rowTime(_ row: Double) -> MonotonicTime {
            WarpGeometry.rowTime(row, start: sensorTimestamp, exposureMicroseconds: exposureMicroseconds, lineNanoseconds: geometry.lineNanoseconds)
        }
        let middle = rowTime(Double(source.size.height) / 2)
        guard let target = planner.push(time: middle, orientationAt: orientationAt).last else { return buffer }
        let cameras = (0..<geometry.bandCount).map { b in
            orientationAt(rowTime(geometry.bandCentreY(b) + Double(source.size.height) / 2)) ?? target.camera
        }
        func bands(_ view: Quaternion) -> [Homography] { cameras.map { geometry.homography(camera: $0, view: view) } }
        let eased = RotationPathPlanner.ease(target, geometry: geometry, bands: bands)
        planner.shown(eased.view)
        let warp = PackedRotationWarp(geometry: geometry, bands: bands(eased.view))
        let size = source.size, stride = source.stride, count = stride * size.height
        guard count > 0, source.byteCount >= count else { return buffer }
        let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 64)
        let box = MemoryBox(memory: memory)
        return FrameBuffer(pixelFormat: source.pixelFormat, size: size, stride: stride, memory: memory, render: { target in
            source.withUnsafeBytes { bytes in
                guard let s = bytes.baseAddress, let t = target.baseAddress else { return }
                warp.warp(source: s.assumingMemoryBound(to: UInt8.self), into: t.assumingMemoryBound(to: UInt8.self), size: size,
                          stride: stride, bytesPerPixel: bytesPerPixel)
            }
        }, release: { box.memory.deallocate() })
    }

    /// Memory the frame owns until its last reference goes.
    private struct MemoryBox: @unchecked Sendable { let memory: UnsafeMutableRawBufferPointer }
}

import Foundation

/// What a simulated frame truly showed (`sim scene object`, `sim pose`): the sidecar's
/// `simulation` object, so a test can compare a reconstruction with the truth
/// (docs/photogrammetry.md). Carried from the simulated camera to the sidecar as the frame's
/// `SimulationTruth` metadata (JSON text); real cameras have none.
public struct SimulationTruth: Hashable, Sendable, Codable {
    /// The metadata key that carries it.
    public static let metadataKey = "SimulationTruth"

    /// What `sim scene` says: "object", "object spin 60", "even", …
    public var scene: String
    /// The rig's position, metres (world: z up, the turntable's axis is z).
    public var positionMetres: [Double]
    /// The point the rig looks at, metres; the camera is level (no roll).
    public var lookAtMetres: [Double]
    /// The object's turn about z at the middle of the frame's exposure, degrees (0 … 360).
    public var objectRotationDegrees: Double?
    /// The turntable's speed, degrees per second.
    public var objectSpinDegreesPerSecond: Double?
    /// The instant the rotation is for: the exposure's middle on the wall clock (CLOCK_REALTIME ns).
    public var exposureMiddleWallClockNanoseconds: Int64?
    /// The pinhole's focal length in sensor pixels (the full pixel array's; divide by the image's
    /// scale for its pixels), and its principal point: the pixel array's centre.
    public var focalLengthSensorPixels: Double?

    public init(scene: String, positionMetres: [Double], lookAtMetres: [Double], objectRotationDegrees: Double? = nil,
                objectSpinDegreesPerSecond: Double? = nil, exposureMiddleWallClockNanoseconds: Int64? = nil,
                focalLengthSensorPixels: Double? = nil) {
        self.scene = scene; self.positionMetres = positionMetres; self.lookAtMetres = lookAtMetres
        self.objectRotationDegrees = objectRotationDegrees; self.objectSpinDegreesPerSecond = objectSpinDegreesPerSecond
        self.exposureMiddleWallClockNanoseconds = exposureMiddleWallClockNanoseconds
        self.focalLengthSensorPixels = focalLengthSensorPixels
    }

    /// As metadata: compact JSON text.
    public var metadataValue: ControlValue {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return .string((try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}")
    }

    /// From a frame's metadata; nil when it has none (or it does not decode).
    public init?(metadata: ControlList) {
        guard case .string(let text)? = metadata[Self.metadataKey],
              let truth = try? JSONDecoder().decode(SimulationTruth.self, from: Data(text.utf8)) else { return nil }
        self = truth
    }
}

import Hardware

/// A `SimulatedCamera`'s HDR: the sensor's own HDR, the HdrMode in force, and the modes its tuning lacks.
public struct SimulatedHDRState: Sendable, Equatable {
    /// True when opened with the sensor's own HDR on (`SimulatedCameraProvider.setSensorHDR`): the
    /// sensor has only its HDR modes and every processed frame is rendered in HDR.
    public internal(set) var sensorHDR = false
    /// The HdrMode the last request taken for a frame asked for (Off until one does).
    public internal(set) var mode: HdrModeValue = .off
    /// HdrMode values the camera lists but its tuning lacks: asked for one, it goes on in the mode
    /// it was in, and its metadata says so (as Raspberry Pi's IPA does for a mode its tuning file has
    /// no configuration for).
    public var unconfiguredModes: Set<HdrModeValue> = []

    /// True when this frame's processed streams are rendered in HDR: the sensor's HDR mode, or an
    /// HdrMode that merges or tone-maps (unmerged frames are each one plain exposure).
    var rendersHDR: Bool { sensorHDR || mode == .multiExposure || mode == .singleExposure || mode == .night }

    /// Keeps a request's HdrMode: the IPA switches at the frame that takes it.
    mutating func take(_ controls: ControlList) {
        if let new = HdrModeValue(metadata: controls), !unconfiguredModes.contains(new) { mode = new }
    }
}

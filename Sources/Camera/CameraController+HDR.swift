import Hardware

extension CameraController {
    /// Sets video HDR's HdrMode for the next requests (nil or `.off`: HdrMode Off). Throws
    /// `.unsupported` when the camera does not list HdrMode or the value (libcamera 0.0.3 has none).
    public func setHdrMode(_ mode: HdrModeValue?) throws(CameraError) {
        if let mode, mode != .off, !FormatTable.listedHdrModes(device.controlInfo).contains(mode) {
            throw CameraError(.unsupported, "camera \(device.info.model): HdrMode \(mode) is not listed by this libcamera")
        }
        settings.hdrMode = mode == .off ? nil : mode
    }

    /// HdrMode for a request's controls: the value in force, Off when none (only where the camera
    /// lists the control; the rest is filtered out before queueing).
    var hdrModeControl: ControlValue { .int32((hdrMode ?? .off).rawValue) }

    /// The shortest frame of the sensor's HDR mode while the camera runs in it, µs; nil otherwise.
    var sensorHDRMinimumFrameDurationMicroseconds: Int64? {
        guard sensorHDROn, let mode = FormatTable.sensorHDRMode(sensor, size: activeFormat.format.sensorModeSize) else { return nil }
        return Int64((1e6 / max(mode.maximumFps, 0.1)).rounded(.up))
    }

    /// A completed request's frame state, with what the controller knows of HDR besides the metadata.
    public func frameState(_ completed: CompletedRequest) -> FrameState {
        var state = FrameState(completed, isoPerGain: sensor.isoPerGain)
        state.sensorHDR = sensorHDROn
        return state
    }
}

extension FrameState {
    /// The frame's video HDR as status and sidecars name it (`videoHDRLabel`).
    public var hdrLabel: String { videoHDRLabel(mode: hdrMode, channel: hdrChannel, sensorHDR: sensorHDR) }
}

import Hardware

/// Digital zoom, with AVFoundation's `videoZoomFactor` semantics: 1 shows the active format's whole
/// field; n shows its centre, 1/n as wide and high, through libcamera's ScalerCrop (the ISP crops
/// before it scales, so processed frames and JPEGs are zoomed; the raw stream and DNGs are not).
extension CameraController {
    /// The largest zoom of the active format: its ScalerCrop minimum allows it (the format table's
    /// `maximumZoom`); 1 when the camera has no ScalerCrop control.
    public var maximumZoomFactor: Double {
        guard device.controlInfo[ControlName.scalerCrop] != nil else { return 1 }
        return max(activeFormat.format.maximumZoom ?? 1, 1)
    }

    /// Sets the zoom factor. Throws `.outOfRange` (stating the range) outside 1…`maximumZoomFactor`,
    /// and `.unsupported` for a zoom above 1 on a camera without ScalerCrop.
    public func setZoom(_ factor: Double) throws {
        if factor > 1, device.controlInfo[ControlName.scalerCrop] == nil {
            throw CameraError(.unsupported, "zoom: camera \(sensor.model) has no ScalerCrop control")
        }
        let top = maximumZoomFactor
        guard factor >= 1, factor <= top + 1e-9 else {
            throw CameraError(.outOfRange, "zoom: \(FormatTable.number(factor, digits: 2))x is outside 1...\(FormatTable.number(top, digits: 2))x for format \(activeFormat.format.index) (\(activeFormat.format.label))")
        }
        settings.zoomFactor = factor
    }

    /// `rect` zoomed about its centre: the same centre, 1/`zoomFactor` as wide and high. Applied to
    /// the format's sensor crop it is the zoom's ScalerCrop; applied to a stabilization crop it
    /// keeps that crop's shift whole (motion in sensor pixels does not shrink with zoom).
    /// Never smaller than the ScalerCrop minimum (a stabilized crop at the maximum zoom would be).
    public func zoomed(_ rect: PixelRect) -> PixelRect {
        guard zoomFactor > 1 else { return rect }
        var smallest = PixelSize(width: 2, height: 2)
        if case .rectangle(let r)? = device.controlInfo[ControlName.scalerCrop]?.minimum { smallest = r.size }
        let width = min(max((Int((Double(rect.width) / zoomFactor).rounded()) + 1) & ~1, smallest.width), rect.width)
        let height = min(max((Int((Double(rect.height) / zoomFactor).rounded()) + 1) & ~1, smallest.height), rect.height)
        return PixelRect(x: rect.x + (rect.width - width) / 2, y: rect.y + (rect.height - height) / 2, width: width, height: height)
    }

    /// The ScalerCrop of the zoom: the active format's sensor crop, zoomed.
    public var zoomCrop: PixelRect { zoomed(activeFormat.format.sensorCrop) }

    /// The zoom's ScalerCrop for the next request, on every request of a camera with ScalerCrop:
    /// brackets then frame the zoomed field whatever video stabilization last sent (regular
    /// requests carry its moving crop instead, through `streamingControls`).
    var zoomControl: ControlValue? {
        guard device.controlInfo[ControlName.scalerCrop] != nil else { return nil }
        return .rectangle(zoomCrop)
    }
}

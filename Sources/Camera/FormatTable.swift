import Foundation
import Hardware

/// Builds the format table of a camera from its sensor description and its ControlInfoMap.
///
/// Each non-HDR sensor mode gives a format at its own size, plus 1920×1080 and 1280×720 where they
/// are smaller than the mode and at least half its width (smaller outputs from a big mode are not
/// worth listing). A camera without a database entry has one assumed mode (readout "unknown") and
/// no smaller modes to choose instead, so every size of `genericOutputSizes` below it is offered.
/// Rows are ordered by output area, then by max fps, fastest first.
public enum FormatTable {
    /// Extra output sizes offered from a larger mode.
    public static let standardOutputSizes = [PixelSize(width: 1920, height: 1080), PixelSize(width: 1280, height: 720)]
    /// Extra output sizes offered from the assumed mode of a camera without a database entry.
    public static let genericOutputSizes = standardOutputSizes + [PixelSize(width: 640, height: 480)]

    /// The table for `sensor` as the camera reports `controlInfo` (`CameraDevice.controlInfo`).
    /// Ranges come from the controls when present (ExposureTime, AnalogueGain, FrameDurationLimits,
    /// ScalerCrop, HdrMode), else from the sensor description. `sensorHDRSwitchable`: the camera
    /// manager can switch the sensor's own HDR (`SensorHDRSwitch`), so formats on the sensor's HDR
    /// mode size list "sensor" HDR.
    public static func formats(sensor: SensorDescription, controlInfo: [String: ControlInfo],
                               sensorHDRSwitchable: Bool = false) -> [CameraFormat] {
        let exposure = controlInfo[ControlName.exposureTime]
        let gain = controlInfo[ControlName.analogueGain]
        let minimumExposure = Int(exposure?.minimum?.doubleValue ?? Double(sensor.exposureMinimumMicroseconds))
        let maximumExposure = Int(exposure?.maximum?.doubleValue ?? Double(sensor.exposureMaximumMicroseconds))
        let minimumGain = gain?.minimum?.doubleValue ?? sensor.analogueGainMinimum
        let maximumGain = gain?.maximum?.doubleValue ?? sensor.analogueGainMaximum
        let longestFrame = Int64(controlInfo[ControlName.frameDurationLimits]?.maximum?.doubleValue
                                 ?? Double(max(sensor.exposureMaximumMicroseconds, 1)))
        var minimumCropWidth: Int?
        if case .rectangle(let r)? = controlInfo[ControlName.scalerCrop]?.minimum, r.width > 0 { minimumCropWidth = r.width }
        let hdrModes = listedHdrModes(controlInfo)
        let afSystem = autofocusSystem(sensor: sensor, controlInfo: controlInfo)
        let modes = sensor.modes.filter { $0.hdr != true }

        var rows: [CameraFormat] = []
        for mode in modes {
            let outputs = [mode.size] + (mode.readout == "unknown" ? genericOutputSizes : standardOutputSizes).filter {
                $0.width < mode.width && $0.height < mode.height && (mode.readout == "unknown" || $0.width * 2 >= mode.width)
            }
            for output in outputs {
                let crop = aspectCrop(mode.crop, to: output)
                let binning = Double(max(mode.binningFactor ?? 1, 1))
                let upscale = Double(crop.width) / binning / Double(output.width)
                let shortest = Int64((1e6 / max(mode.maximumFps, 0.001)).rounded(.up))
                let hdr = VideoHDRSupport(sensor: sensorHDRSwitchable && sensorHDRMode(sensor, size: mode.size) != nil,
                                          hdrModes: hdrModes)
                rows.append(CameraFormat(
                    index: 0, size: output, pixelFormat: .bgr888,
                    rawPixelFormat: sensor.bayerOrder.map { PixelFormat("S\($0)\(mode.bitDepth)") },
                    sensorModeSize: mode.size, sensorCrop: crop, sensorModeCrop: mode.crop,
                    minimumFps: 1e6 / Double(max(longestFrame, shortest)), maximumFps: mode.maximumFps,
                    minimumFrameDurationMicroseconds: shortest,
                    maximumFrameDurationMicroseconds: max(longestFrame, shortest),
                    horizontalFieldOfViewDegrees: fieldOfView(pixels: crop.width, sensor: sensor),
                    verticalFieldOfViewDegrees: fieldOfView(pixels: crop.height, sensor: sensor),
                    isBinned: binning > 1,
                    maximumZoom: minimumCropWidth.map { Double(crop.width) / Double($0) },
                    upscaleStartZoom: upscale, afSystem: afSystem,
                    minimumISO: minimumGain * sensor.isoPerGain, maximumISO: maximumGain * sensor.isoPerGain,
                    minimumExposureMicroseconds: minimumExposure, maximumExposureMicroseconds: maximumExposure,
                    videoHDR: hdr,
                    stabilizationModes: StabilizationMode.supported(output: output, maximumFps: mode.maximumFps,
                                                                    headroom: upscale - 1),
                    // Without interrupting the format: its raw frame (the sensor mode) where the
                    // sensor has one, else the processed stream.
                    highResolutionStill: sensor.bayerOrder == nil || output.area > mode.size.area ? output : mode.size))
            }
        }
        rows.sort { ($0.size.area, -$0.maximumFps) < ($1.size.area, -$1.maximumFps) }
        for i in rows.indices { rows[i].index = i }
        return rows
    }

    /// The HdrMode values (Off left out) the camera lists: libcamera describes the control by its
    /// values, so its ControlInfo spans Off…Night.
    static func listedHdrModes(_ controlInfo: [String: ControlInfo]) -> [HdrModeValue] {
        guard let info = controlInfo[ControlName.hdrMode], let low = info.minimum?.int64Value,
              let high = info.maximum?.int64Value, low <= high else { return [] }
        return HdrModeValue.allCases.filter { $0 != .off && Int64($0.rawValue) >= low && Int64($0.rawValue) <= high }
    }

    /// The sensor's own HDR mode of `size` (the IMX708's 2304×1296), if it has one.
    public static func sensorHDRMode(_ sensor: SensorDescription, size: PixelSize) -> SensorDescription.Mode? {
        guard sensor.hdr else { return nil }
        return sensor.modes.first { $0.hdr == true && $0.size == size }
    }

    /// The camera's AF system: the sensor's ("contrast", "phase", "unknown") when the camera lists
    /// AfMode, else "none". AfMode is what switches AF and manual focus, so without it neither the
    /// format table nor the controller offers focus (a LensPosition alone does not count). The one
    /// rule for both (`CameraController.afSystem`).
    public static func autofocusSystem(sensor: SensorDescription, controlInfo: [String: ControlInfo]) -> String {
        controlInfo[ControlName.afMode] == nil ? "none" : sensor.afSystem
    }

    /// The largest rectangle of `output`'s aspect ratio centred in `crop`.
    static func aspectCrop(_ crop: PixelRect, to output: PixelSize) -> PixelRect {
        let target = Double(output.width) / Double(output.height)
        let current = Double(crop.width) / Double(crop.height)
        var w = crop.width, h = crop.height
        if current > target { w = Int((Double(h) * target).rounded()) } else { h = Int((Double(w) / target).rounded()) }
        return PixelRect(x: crop.x + (crop.width - w) / 2, y: crop.y + (crop.height - h) / 2, width: w, height: h)
    }

    /// Angle subtended by `pixels` of the pixel array through the stock lens, degrees.
    static func fieldOfView(pixels: Int, sensor: SensorDescription) -> Double? {
        guard let lens = sensor.lens, let pitch = sensor.pixelSizeMicrometres else { return nil }
        let extentMillimetres = Double(pixels) * pitch / 1000
        return 2 * atan(extentMillimetres / (2 * lens.focalLengthMillimetres)) * 180 / .pi
    }
}

import Hardware

/// Which libcamera's controls the simulated camera offers.
public enum SimulatedLibcamera: String, Sendable, CaseIterable {
    /// Debian's 0.0.3: AeEnable switches AE, ExposureTime 0 hands exposure back to it, AeLocked
    /// metadata.
    case debian0_0_3
    /// Raspberry Pi's fork, 0.5 and later: ExposureTimeMode/AnalogueGainMode (which take precedence
    /// over AeEnable; ExposureTime counts only in manual mode), AeState and FrameWallClock metadata.
    case raspberryPi0_5
}

/// The simulated camera's ControlInfoMap, stream formats and configuration validation, derived
/// from the sensor description the way libcamera's Raspberry Pi pipeline derives them from the
/// sensor driver: HdrMode (all values, as on a Pi 5) with the fork's controls when the sensor has an
/// HDR mode, LensPosition/AfMode only with AF. With the sensor's own HDR on (`sensorHDR`), the
/// sensor has only its HDR modes, as the IMX708 with `wide_dynamic_range` set.
enum SimulatedControlInfo {
    /// Processed sizes offered besides the sensor modes.
    static let standardSizes = [PixelSize(width: 1920, height: 1080), PixelSize(width: 1280, height: 720),
                                PixelSize(width: 640, height: 480)]

    static func controls(sensor: SensorDescription, mode: SensorDescription.Mode?,
                         libcamera: SimulatedLibcamera) -> [String: ControlInfo] {
        func info(_ name: String, _ lo: ControlValue?, _ hi: ControlValue?, _ def: ControlValue?) -> (String, ControlInfo) {
            (name, ControlInfo(name: name, minimum: lo, maximum: hi, defaultValue: def))
        }
        let fastest = sensor.modes.map(\.maximumFps).max() ?? 30
        let minimumFrame = Int64((1e6 / max(mode?.maximumFps ?? fastest, 0.1)).rounded(.up))
        let maximumFrame = Int64(max(sensor.exposureMaximumMicroseconds, 1))
        let crop = mode?.crop ?? PixelRect(x: 0, y: 0, width: sensor.pixelArray.width, height: sensor.pixelArray.height)
        // Smallest crop: 1/16 of the pixel array each way (a modelling choice, see docs/camera-formats.md).
        let minimumCrop = PixelRect(x: 0, y: 0, width: max(sensor.pixelArray.width / 16, 16),
                                    height: max(sensor.pixelArray.height / 16, 16))
        var list: [(String, ControlInfo)] = [
            info(ControlName.aeEnable, .bool(false), .bool(true), .bool(true)),
            info(ControlName.exposureTime, .int32(Int32(clamping: sensor.exposureMinimumMicroseconds)),
                 .int32(Int32(clamping: sensor.exposureMaximumMicroseconds)), .int32(20_000)),
            info(ControlName.analogueGain, .float(Float(sensor.analogueGainMinimum)),
                 .float(Float(sensor.analogueGainMaximum)), .float(1)),
            info(ControlName.exposureValue, .float(-8), .float(8), .float(0)),
            info(ControlName.awbEnable, .bool(false), .bool(true), .bool(true)),
            info(ControlName.colourGains, .float(0), .float(32), nil),
            info(ControlName.frameDurationLimits, .int64(minimumFrame), .int64(maximumFrame),
                 .int64Array([minimumFrame, maximumFrame])),
            info(ControlName.scalerCrop, .rectangle(minimumCrop), .rectangle(crop), .rectangle(crop)),
        ]
        if libcamera == .raspberryPi0_5 {
            list += [
                info(ControlName.exposureTimeMode, .int32(0), .int32(1), .int32(0)),
                info(ControlName.analogueGainMode, .int32(0), .int32(1), .int32(0)),
                // Frame sync (rpi::SyncMode, rpi::SyncFrames), with the ranges the fork's IPA lists.
                info(ControlName.syncMode, .int32(0), .int32(2), .int32(0)),
                info(ControlName.syncFrames, .int32(100), .int32(100_000), .int32(1000)),
            ]
            if listsHdrMode(sensor: sensor, libcamera: libcamera) {
                list.append(info(ControlName.hdrMode, .int32(HdrModeValue.off.rawValue), .int32(HdrModeValue.night.rawValue),
                                 .int32(HdrModeValue.off.rawValue)))
            }
        }
        if sensor.afSystem == "phase" || sensor.afSystem == "contrast" {
            let top = sensor.lensPositionMaximumDioptres ?? 0
            list += [
                info(ControlName.afMode, .int32(0), .int32(2), .int32(0)),
                info(ControlName.afTrigger, .int32(0), .int32(1), .int32(0)),
                info(ControlName.lensPosition, .float(0), .float(Float(top)),
                     .float(Float(sensor.lensPositionDefaultDioptres ?? 1))),
            ]
        }
        return Dictionary(list, uniquingKeysWith: { a, _ in a })
    }

    /// True when the camera lists HdrMode (and reports it per frame): the fork's controls and a
    /// sensor with an HDR mode.
    static func listsHdrMode(sensor: SensorDescription, libcamera: SimulatedLibcamera) -> Bool {
        libcamera == .raspberryPi0_5 && sensor.hdr
    }

    /// The raw format of a mode: "S" + CFA order + bit depth ("SRGGB10").
    static func rawFormat(sensor: SensorDescription, mode: SensorDescription.Mode) -> PixelFormat {
        PixelFormat("S\(sensor.bayerOrder ?? "RGGB")\(mode.bitDepth)")
    }

    /// The modes the sensor offers: its HDR modes alone with the sensor's HDR on, else the rest.
    static func modes(_ sensor: SensorDescription, sensorHDR: Bool) -> [SensorDescription.Mode] {
        sensor.modes.filter { ($0.hdr == true) == sensorHDR }
    }

    static func streamFormats(sensor: SensorDescription, role: StreamRole, sensorHDR: Bool = false) -> [StreamFormat] {
        if role == .raw {
            var byFormat: [PixelFormat: [PixelSize]] = [:]
            for mode in modes(sensor, sensorHDR: sensorHDR) { byFormat[rawFormat(sensor: sensor, mode: mode), default: []].append(mode.size) }
            return byFormat.keys.sorted { $0.rawValue < $1.rawValue }.map { StreamFormat(pixelFormat: $0, sizes: unique(byFormat[$0] ?? [])) }
        }
        let sizes = unique(sensor.modes.map(\.size) + standardSizes.filter {
            $0.width <= sensor.pixelArray.width && $0.height <= sensor.pixelArray.height
        })
        return [StreamFormat(pixelFormat: .bgr888, sizes: sizes), StreamFormat(pixelFormat: .xrgb8888, sizes: sizes),
                StreamFormat(pixelFormat: .yuv420, sizes: sizes)]
    }

    private static func unique(_ sizes: [PixelSize]) -> [PixelSize] {
        Array(Set(sizes)).sorted { ($0.area, $0.width) < ($1.area, $1.width) }
    }

    /// Validates streams like `CameraConfiguration::validate`: unknown formats become BGR888 (or the
    /// mode's raw format), sizes are clamped to 64×64…pixel array and made even, a raw size snaps to
    /// the nearest mode. Picks the mode: the raw stream's, else the smallest (fastest on ties) mode
    /// covering the largest output, else the full mode.
    /// `rawOutput` is what the raw stream hands back for the mode's raw format (a Pi 5's 16-bit or
    /// compressed raw, a Pi 4's CSI-2 packed): the stream comes back adjusted to it.
    static func validate(_ requested: [StreamConfiguration], sensor: SensorDescription, sensorHDR: Bool = false,
                         rawOutput: SimulatedRawOutput = .unpacked)
        -> (ConfigurationStatus, [StreamConfiguration], SensorDescription.Mode) {
        let offered = modes(sensor, sensorHDR: sensorHDR)
        var status = ConfigurationStatus.valid
        var out: [StreamConfiguration] = []
        let full = offered.max { $0.size.area < $1.size.area }
            ?? SensorDescription.Mode(width: sensor.pixelArray.width, height: sensor.pixelArray.height, bitDepth: sensor.bitDepth,
                                      readout: "full", crop: PixelRect(x: 0, y: 0, width: sensor.pixelArray.width,
                                                                       height: sensor.pixelArray.height),
                                      maximumFps: 30, hdr: nil, readoutMilliseconds: nil, binningFactor: nil)
        var rawMode: SensorDescription.Mode?
        for var stream in requested {
            if stream.role == .raw {
                let mode = offered.min {
                    abs($0.size.area - stream.size.area) < abs($1.size.area - stream.size.area)
                } ?? full
                let delivered = rawOutput.layout(order: sensor.bayerOrder ?? "RGGB", bits: mode.bitDepth, width: mode.width)
                if stream.size != mode.size || stream.pixelFormat != delivered.format { status = .adjusted }
                stream.size = mode.size
                stream.pixelFormat = delivered.format
                stream.stride = delivered.stride
                rawMode = mode
            } else {
                if ![PixelFormat.bgr888, .xrgb8888, .yuv420].contains(stream.pixelFormat) {
                    stream.pixelFormat = .bgr888
                    status = .adjusted
                }
                let w = min(max(stream.size.width, 64), sensor.pixelArray.width) & ~1
                let h = min(max(stream.size.height, 64), sensor.pixelArray.height) & ~1
                if w != stream.size.width || h != stream.size.height { status = .adjusted }
                stream.size = PixelSize(width: w, height: h)
                stream.stride = w * (stream.pixelFormat == .xrgb8888 ? 4 : stream.pixelFormat == .yuv420 ? 1 : 3)
            }
            if stream.bufferCount < 1 { stream.bufferCount = 1; status = .adjusted }
            out.append(stream)
        }
        // Raspberry Pi's rule for two processed streams: the smaller is no larger than the larger in
        // either dimension (the ISP's second output scales down only).
        let processed = out.filter { $0.role != .raw }.map(\.size).sorted { $0.area > $1.area }
        if processed.count == 2, processed[1].width > processed[0].width || processed[1].height > processed[0].height {
            status = .invalid
        }
        if let rawMode { return (status, out, rawMode) }
        let largest = out.max { $0.size.area < $1.size.area }?.size ?? full.size
        let covering = offered.filter { $0.width >= largest.width && $0.height >= largest.height }
        let mode = covering.min { ($0.size.area, -$0.maximumFps) < ($1.size.area, -$1.maximumFps) } ?? full
        return (status, out, mode)
    }
}

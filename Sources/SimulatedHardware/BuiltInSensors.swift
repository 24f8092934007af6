import Foundation
import Hardware

extension SensorDescription {
    /// The Camera Module 3 (IMX708) entry, identical to `board/sensors/imx708.json` (a test checks),
    /// built in so the simulated camera works without the database directory.
    public static var builtInIMX708: SensorDescription {
        get throws {
            do {
                return try JSONDecoder().decode(SensorDescription.self, from: Data(imx708JSON.utf8))
            } catch {
                throw HardwareError(.other, "simulated camera: built-in imx708 description does not decode: \(error)")
            }
        }
    }
}

private let imx708JSON = #"""
{"model":"imx708","product":"Camera Module 3","pixelArray":{"width":4608,"height":2592},"pixelSizeMicrometres":1.4,"bayerOrder":"RGGB","bitDepth":10,"blackLevel16":4096,"analogueGainMinimum":1.0,"analogueGainMaximum":16.0,"isoPerGain":100,"exposureMinimumMicroseconds":26,"exposureMaximumMicroseconds":112015443,"exposureDelayFrames":2,"gainDelayFrames":2,"vblankDelayFrames":3,"lens":{"focalLengthMillimetres":4.74,"fNumber":1.8,"interchangeable":false},"afSystem":"phase","lensPositionMaximumDioptres":15.0,"lensPositionDefaultDioptres":1.0,"hdr":true,"modes":[{"width":1536,"height":864,"bitDepth":10,"readout":"cropped","crop":{"x":768,"y":432,"width":3072,"height":1728},"maximumFps":120.12,"binningFactor":2,"readoutMilliseconds":7.96},{"width":2304,"height":1296,"bitDepth":10,"readout":"binned","crop":{"x":0,"y":0,"width":4608,"height":2592},"maximumFps":56.02,"binningFactor":2,"readoutMilliseconds":17.32},{"width":2304,"height":1296,"bitDepth":10,"readout":"binned","crop":{"x":0,"y":0,"width":4608,"height":2592},"maximumFps":30.0,"binningFactor":2,"hdr":true,"readoutMilliseconds":8.69},{"width":4608,"height":2592,"bitDepth":10,"readout":"full","crop":{"x":0,"y":0,"width":4608,"height":2592},"maximumFps":14.35,"readoutMilliseconds":68.14}],"colourCalibration":[{"temperatureKelvin":2498.0,"redGain":1.1451,"blueGain":3.8373},{"temperatureKelvin":2821.0,"redGain":1.2975,"blueGain":3.0817},{"temperatureKelvin":2925.0,"redGain":1.3628,"blueGain":2.858},{"temperatureKelvin":2926.0,"redGain":1.3902,"blueGain":2.7755},{"temperatureKelvin":2951.0,"redGain":1.3998,"blueGain":2.748},{"temperatureKelvin":2954.0,"redGain":1.4063,"blueGain":2.73},{"temperatureKelvin":3578.0,"redGain":1.6562,"blueGain":2.2143},{"temperatureKelvin":3717.0,"redGain":1.7062,"blueGain":2.1418},{"temperatureKelvin":3784.0,"redGain":1.7283,"blueGain":2.111},{"temperatureKelvin":4485.0,"redGain":1.9558,"blueGain":1.8629},{"temperatureKelvin":4615.0,"redGain":2.0024,"blueGain":1.8228},{"temperatureKelvin":4671.0,"redGain":2.0296,"blueGain":1.8005},{"temperatureKelvin":5753.0,"redGain":2.3397,"blueGain":1.601},{"temperatureKelvin":5773.0,"redGain":2.3447,"blueGain":1.5985},{"temperatureKelvin":7433.0,"redGain":2.686,"blueGain":1.4533}],"notes":["control delays (exposure, gain, vblank) from libcamera's camera_sensor_properties.cpp","colourCalibration: white-point gains are 1/r and 1/b of the ct_curve in Raspberry Pi's vc4 tuning file for this sensor (libcamera src/ipa/rpi/vc4/data)","modes, crop rectangles (active-array coordinates), max fps = pixel rate / (line length x (height + min vblank)) and readout = line time x height are from the Raspberry Pi kernel driver imx708.c (checked)","exposure limits 26 us .. 112 s are from public reports (unverified); the driver's minimum is 4-8 lines (37-210 us depending on mode)","pixel size 1.4 um from camera_sensor_properties.cpp (unitCellSize 1400 nm)","lens 4.74 mm f/1.8 is the standard (not wide) Camera Module 3 (unverified here)","lens position 0..15 dioptres and default 1.0 from the tuning file's rpi.af ranges (normal 0..12, macro 3..15)","the 2304x1296 HDR mode (30 fps) needs libcamera's HdrMode control, absent in 0.0.3"]}
"""#

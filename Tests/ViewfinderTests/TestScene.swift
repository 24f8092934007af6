import Hardware
import Viewfinder

/// Deterministic test pictures and status values for the overlay tests.
enum TestScene {
    /// A 16:9 BGR888 chart: colour bars on top; below, a grey ramp on the left, a clipped white
    /// patch and a checkerboard (sharp edges) on the right.
    static func chart(width: Int = 1280, height: Int = 720) -> FrameBuffer {
        let bars: [(UInt8, UInt8, UInt8)] = [(235, 235, 235), (235, 235, 16), (16, 235, 235), (16, 235, 16),
                                             (235, 16, 235), (235, 16, 16), (16, 16, 235), (16, 16, 16)]
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                var rgb: (UInt8, UInt8, UInt8)
                if y < height / 2 {
                    rgb = bars[x * bars.count / width]
                } else if x < width / 2 {
                    let v = UInt8(x * 255 / (width / 2 - 1))
                    rgb = (v, v, v)
                } else if x < width * 3 / 4 {
                    rgb = y < height * 3 / 4 ? (255, 255, 255) : (128, 96, 64)
                } else {
                    let on = ((x * 16 / width) + (y * 9 / height)) % 2 == 0
                    rgb = on ? (250, 250, 250) : (20, 20, 20)
                }
                let i = (y * width + x) * 3
                bytes[i] = rgb.0; bytes[i + 1] = rgb.1; bytes[i + 2] = rgb.2
            }
        }
        return FrameBuffer(pixelFormat: .bgr888, size: .init(width: width, height: height), stride: width * 3, bytes: bytes)
    }

    /// A busy status: manual exposure, bracket underway, stabilization on, recording.
    static var status: ViewfinderStatus {
        var s = ViewfinderStatus()
        s.exposureDurationMicroseconds = 8000
        s.iso = 400
        s.exposureBiasEV = -0.7
        s.autoExposure = false
        s.whiteBalance = .kelvin(5600)
        s.focusMode = "AF-C"
        s.lensPositionDioptres = 1.25
        s.format = "RAW12 4608x2592"
        s.framesPerSecond = 30
        s.bracket = .init(index: 2, count: 5, evOffset: -1)
        s.stabilization = .init(mode: "ON", rollDegrees: -1.2, marginUsed: 0.35)
        s.imuState = "OK 800Hz"
        s.recording = true
        s.message = "SAVED IMG_0042.DNG"
        return s
    }
}

extension ColourCalibration {
    /// The linear sRGB (D65) → XYZ matrix of IEC 61966-2-1, row-major.
    static let srgbToXYZ: [Double] = [0.4124, 0.3576, 0.1805, 0.2126, 0.7152, 0.0722, 0.0193, 0.1192, 0.9505]

    /// A calibration from what libcamera reports for a frame: its `ColourCorrectionMatrix` (3×3,
    /// row-major, white-balanced camera RGB → linear sRGB) and `ColourGains`. Then
    /// camera = diag(1/gains) · CCM⁻¹ · (XYZ → sRGB) · XYZ, which is DNG's ColorMatrix1. The
    /// illuminant is the standard one nearest `colourTemperatureKelvin` (D65 when unknown).
    /// Nil when the matrix is not 3×3 or not invertible, or a gain is not positive.
    public static func fromLibcamera(colourCorrectionMatrix ccm: [Double], gains: ColourGains,
                                     colourTemperatureKelvin: Double?) -> ColourCalibration? {
        guard ccm.count == 9, gains.red > 0, gains.blue > 0, let ccmInverse = invert3x3(ccm),
              let xyzToSRGB = invert3x3(srgbToXYZ) else { return nil }
        let cameraFromXYZ = multiply3x3(ccmInverse, xyzToSRGB)
        let scale = [1 / gains.red, 1, 1 / gains.blue]
        let matrix = (0..<9).map { cameraFromXYZ[$0] * scale[$0 / 3] }
        return ColourCalibration(colorMatrix1: matrix, calibrationIlluminant1: illuminant(nearest: colourTemperatureKelvin))
    }

    /// EXIF LightSource code of the standard illuminant nearest a colour temperature:
    /// A 2856 K (17), D50 (23), D55 (20), D65 (21), D75 (22).
    static func illuminant(nearest kelvin: Double?) -> Int {
        guard let kelvin, kelvin > 0 else { return 21 }
        let table: [(kelvin: Double, code: Int)] = [(2856, 17), (5003, 23), (5503, 20), (6504, 21), (7504, 22)]
        // Compare in mired (1e6/K): perceptually closer to even than kelvin.
        return table.min { abs(1e6 / $0.kelvin - 1e6 / kelvin) < abs(1e6 / $1.kelvin - 1e6 / kelvin) }?.code ?? 21
    }
}

/// Row-major 3×3 product a · b.
func multiply3x3(_ a: [Double], _ b: [Double]) -> [Double] {
    var product = [Double](repeating: 0, count: 9)
    for row in 0..<3 {
        for column in 0..<3 {
            var sum = 0.0
            for k in 0..<3 { sum += a[row * 3 + k] * b[k * 3 + column] }
            product[row * 3 + column] = sum
        }
    }
    return product
}

/// Row-major 3×3 inverse by cofactors; nil when (nearly) singular.
func invert3x3(_ m: [Double]) -> [Double]? {
    guard m.count == 9 else { return nil }
    let c = [
        m[4] * m[8] - m[5] * m[7], m[2] * m[7] - m[1] * m[8], m[1] * m[5] - m[2] * m[4],
        m[5] * m[6] - m[3] * m[8], m[0] * m[8] - m[2] * m[6], m[2] * m[3] - m[0] * m[5],
        m[3] * m[7] - m[4] * m[6], m[1] * m[6] - m[0] * m[7], m[0] * m[4] - m[1] * m[3],
    ]
    let determinant = m[0] * c[0] + m[1] * c[3] + m[2] * c[6]
    guard abs(determinant) > 1e-12 else { return nil }
    return c.map { $0 / determinant }
}

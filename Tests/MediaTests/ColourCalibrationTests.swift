import Testing
@testable import Media

@Suite struct ColourCalibrationTests {
    @Test func anIdentityCCMGivesTheSRGBMatrixScaledByTheInverseGains() throws {
        let identity: [Double] = [1, 0, 0, 0, 1, 0, 0, 0, 1]
        let c = try #require(ColourCalibration.fromLibcamera(colourCorrectionMatrix: identity,
                                                             gains: ColourGains(red: 2, blue: 1.25), colourTemperatureKelvin: 6400))
        let generic = ColourCalibration.genericSRGB.colorMatrix1
        for i in 0..<9 {
            let scale = [0.5, 1, 0.8][i / 3]
            #expect(abs(c.colorMatrix1[i] - generic[i] * scale) < 2e-3, "element \(i)")
        }
        #expect(c.calibrationIlluminant1 == 21 && !c.isGeneric)
    }

    @Test func aNeutralXYZWhiteMapsToTheAsShotNeutral() throws {
        // A CCM with saturation boost, like a tuning file's; its rows sum to 1 (white stays white).
        let ccm: [Double] = [1.6, -0.4, -0.2, -0.3, 1.5, -0.2, -0.1, -0.5, 1.6]
        let gains = ColourGains(red: 1.9, blue: 1.5)
        let c = try #require(ColourCalibration.fromLibcamera(colourCorrectionMatrix: ccm, gains: gains, colourTemperatureKelvin: 2900))
        // D65 white in XYZ → camera should be proportional to AsShotNeutral (1/1.9, 1, 1/1.5).
        let white = [0.9505, 1.0, 1.089]
        let camera = (0..<3).map { r in (0..<3).reduce(0.0) { $0 + c.colorMatrix1[r * 3 + $1] * white[$1] } }
        #expect(abs(camera[0] / camera[1] - 1 / 1.9) < 2e-3)
        #expect(abs(camera[2] / camera[1] - 1 / 1.5) < 2e-3)
        #expect(c.calibrationIlluminant1 == 17)  // nearest to 2900 K: standard light A
    }

    @Test func aSingularMatrixOrBadGainsFallBack() {
        #expect(ColourCalibration.fromLibcamera(colourCorrectionMatrix: [1, 1, 1, 1, 1, 1, 1, 1, 1],
                                                gains: ColourGains(red: 1, blue: 1), colourTemperatureKelvin: nil) == nil)
        #expect(ColourCalibration.fromLibcamera(colourCorrectionMatrix: [1, 0, 0, 0, 1, 0, 0, 0, 1],
                                                gains: ColourGains(red: 0, blue: 1), colourTemperatureKelvin: nil) == nil)
        #expect(ColourCalibration.illuminant(nearest: 5200) == 23 && ColourCalibration.illuminant(nearest: nil) == 21)
    }
}

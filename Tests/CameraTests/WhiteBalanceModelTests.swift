import Foundation
import Hardware
import Testing
@testable import Camera

@Test(arguments: ["imx708", "imx477", "imx219", "ov5647", "imx296", "generic"])
func temperatureAndTintRoundTripWithinOnePercent(model: String) throws {
    let model = model == "generic" ? WhiteBalanceModel(calibration: nil) : WhiteBalanceModel(calibration: try sensor(model).colourCalibration)
    for kelvin in stride(from: 2500.0, through: 10000, by: 250) {
        for tint in [-60.0, 0, 35] {
            let gains = model.gains(for: TemperatureAndTint(temperatureKelvin: kelvin, tint: tint))
            let back = model.temperatureAndTint(for: gains)
            #expect(abs(back.temperatureKelvin - kelvin) / kelvin < 0.01, "\(kelvin) K tint \(tint) -> \(back)")
            #expect(abs(back.tint - tint) < 1, "\(kelvin) K tint \(tint) -> \(back)")
            let again = model.gains(for: back)
            #expect(abs(again.red / gains.red - 1) < 0.01 && abs(again.blue / gains.blue - 1) < 0.01)
        }
    }
}

@Test func calibrationPointsAreReproducedAndGainsMoveTheRightWay() throws {
    let imx708 = try sensor("imx708")
    let model = WhiteBalanceModel(calibration: imx708.colourCalibration)
    #expect(model.usesCalibration)
    let point = try #require(imx708.colourCalibration?.first { $0.temperatureKelvin == 4485 })
    let gains = model.gains(for: TemperatureAndTint(temperatureKelvin: 4485))
    #expect(abs(gains.red - point.redGain) < 1e-6 && abs(gains.blue - point.blueGain) < 1e-6)
    // Warmer light needs less red gain and more blue gain, in both models.
    for m in [model, WhiteBalanceModel(calibration: nil)] {
        let warm = m.gains(for: TemperatureAndTint(temperatureKelvin: 3000))
        let cool = m.gains(for: TemperatureAndTint(temperatureKelvin: 7000))
        #expect(warm.red < cool.red && warm.blue > cool.blue)
    }
    // Positive tint raises both gains by the documented factor: 1.5 at +150.
    let magenta = model.gains(for: TemperatureAndTint(temperatureKelvin: 4485, tint: 150))
    #expect(abs(magenta.red / gains.red - 1.5) < 1e-9 && abs(magenta.blue / gains.blue - 1.5) < 1e-9)
}

@Test func genericPlanckianModelIsNeutralAtD65() {
    // sRGB's white is D65 (≈ 6504 K): an sRGB-like camera needs gains ≈ 1 there.
    let gains = WhiteBalanceModel.planckianGains(kelvin: 6504)
    #expect(abs(gains.red - 1) < 0.08 && abs(gains.blue - 1) < 0.08)
}

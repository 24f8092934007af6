import Foundation
import Hardware

extension SensorDescription {
    /// The sensor description for `model` ("imx708", any case) embedded in the binary
    /// (`EmbeddedDescriptions.sensors`, generated from board/sensors/MODEL.json), decoded.
    /// Throws `.notFound` when no description is embedded for `model`, `.other` when it does not decode.
    public static func embedded(model: String) throws -> SensorDescription {
        let key = model.lowercased()
        guard let json = EmbeddedDescriptions.sensors[key] else {
            let known = EmbeddedDescriptions.sensors.keys.sorted().joined(separator: ", ")
            throw HardwareError(.notFound, "embedded sensor '\(key)': none; embedded are \(known)")
        }
        do {
            return try JSONDecoder().decode(SensorDescription.self, from: Data(json.utf8))
        } catch {
            throw HardwareError(.other, "embedded sensor '\(key)' does not decode: \(error)")
        }
    }
}

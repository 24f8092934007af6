import Hardware

/// How the IMU's axes map onto the camera frame, written Gyroflow-style as three letters.
///
/// Camera frame (Tripod's convention, shared with `MotionTruth`): x right, y down, z forward along
/// the optical axis, seen from behind the camera. Letter *i* of the string names the IMU axis whose
/// reading becomes camera axis *i*; a lower-case letter negates it. So `"XYZ"` is the identity and
/// `"yXZ"` means camera x = −IMU y, camera y = IMU x, camera z = IMU z. This is the same reading
/// as Gyroflow's "IMU orientation" field (position = expected axis, letter = source, lower case =
/// inverted).
public struct AxisMapping: Hashable, Sendable, Codable, CustomStringConvertible {
    /// For each camera axis: the source IMU axis (0, 1, 2).
    public let sourceAxes: [Int]
    /// For each camera axis: +1 or −1.
    public let signs: [Double]

    /// Parses a three-letter mapping; each of X, Y, Z must appear exactly once (any case).
    public init(_ text: String) throws {
        let letters = Array(text)
        guard letters.count == 3 else {
            throw HardwareError(.invalidArgument, "IMU orientation \"\(text)\": needs three letters from X, Y, Z")
        }
        var sources: [Int] = []
        var signs: [Double] = []
        for letter in letters {
            guard let index = "XYZ".firstIndex(of: Character(letter.uppercased())) else {
                throw HardwareError(.invalidArgument, "IMU orientation \"\(text)\": \"\(letter)\" is not an axis")
            }
            sources.append("XYZ".distance(from: "XYZ".startIndex, to: index))
            signs.append(letter.isUppercase ? 1 : -1)
        }
        guard Set(sources).count == 3 else {
            throw HardwareError(.invalidArgument, "IMU orientation \"\(text)\": each axis must appear once")
        }
        self.sourceAxes = sources
        self.signs = signs
    }

    /// The identity mapping, "XYZ".
    public static let identity = AxisMapping(uncheckedSources: [0, 1, 2], signs: [1, 1, 1])

    private init(uncheckedSources: [Int], signs: [Double]) {
        self.sourceAxes = uncheckedSources; self.signs = signs
    }

    /// The string form, e.g. "yXZ".
    public var description: String {
        (0..<3).map { i in
            let letter = ["X", "Y", "Z"][sourceAxes[i]]
            return signs[i] > 0 ? letter : letter.lowercased()
        }.joined()
    }

    /// An IMU-frame vector in the camera frame.
    @inline(__always)
    public func toCamera(_ v: Vector3) -> Vector3 {
        Vector3(signs[0] * v[sourceAxes[0]], signs[1] * v[sourceAxes[1]], signs[2] * v[sourceAxes[2]])
    }

    /// A camera-frame vector in the IMU frame (the inverse of `toCamera`).
    @inline(__always)
    public func toIMU(_ v: Vector3) -> Vector3 {
        var out = Vector3.zero
        for i in 0..<3 { out[sourceAxes[i]] = signs[i] * v[i] }
        return out
    }
}

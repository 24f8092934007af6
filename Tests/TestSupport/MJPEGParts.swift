/// The parts of a `multipart/x-mixed-replace` MJPEG body as the remote sends them (each with
/// Content-Length, and X-Sensor-Timestamp when known): for the remote's tests and `tools/bench remote`.
public enum MJPEGParts {
    public struct Part: Sendable {
        public let jpeg: [UInt8]
        /// The frame's SensorTimestamp, nanoseconds (CLOCK_MONOTONIC), when the part carried one.
        public let sensorTimestamp: Int64?
        /// The index in the data just past the part's JPEG.
        public let end: Int
    }

    /// The complete parts in `data`, in order.
    public static func parts(in data: [UInt8]) -> [Part] {
        var out: [Part] = []
        var i = 0
        while let head = find(Array("Content-Length: ".utf8), in: data, from: i),
              let headEnd = find([13, 10, 13, 10], in: data, from: head) {
            let fields = String(decoding: data[head..<headEnd], as: UTF8.self).split(separator: "\r\n")
            var length: Int?, stamp: Int64?
            for field in fields {
                if field.hasPrefix("Content-Length: ") { length = Int(field.dropFirst(16)) }
                if field.hasPrefix("X-Sensor-Timestamp: ") { stamp = Int64(field.dropFirst(20)) }
            }
            let start = headEnd + 4
            guard let length, start + length <= data.count else { break }
            out.append(Part(jpeg: Array(data[start..<start + length]), sensorTimestamp: stamp, end: start + length))
            i = start + length
        }
        return out
    }

    public static func jpegs(in data: [UInt8]) -> [[UInt8]] { parts(in: data).map(\.jpeg) }

    /// The width in a JPEG's SOF0/SOF2 segment.
    public static func jpegWidth(_ jpeg: [UInt8]) -> Int? {
        var i = 2
        while i + 9 < jpeg.count {
            guard jpeg[i] == 0xFF else { return nil }
            let marker = jpeg[i + 1]
            let length = Int(jpeg[i + 2]) << 8 | Int(jpeg[i + 3])
            if marker == 0xC0 || marker == 0xC2 { return Int(jpeg[i + 7]) << 8 | Int(jpeg[i + 8]) }
            i += 2 + length
        }
        return nil
    }

    static func find(_ needle: [UInt8], in data: [UInt8], from start: Int) -> Int? {
        guard needle.count <= data.count, start <= data.count - needle.count else { return nil }
        var i = start
        while i <= data.count - needle.count {
            if data[i] == needle[0], data[i..<i + needle.count].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }
}

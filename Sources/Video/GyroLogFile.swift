import Hardware
import Motion

/// The Gyroflow `.gcsv` beside a video file, written as it grows: `GcsvWriter`'s header, then its
/// rows appended through a `StorageStream` as samples arrive, so a crash leaves the log with the
/// video and a long recording keeps no samples in memory. t = 0 at the video's first frame.
final class GyroLogFile {
    let fileName: String
    private let writer: GcsvWriter
    private let stream: any StorageStream
    private let path: String
    /// The newest sample written; older ones are skipped on the next append.
    private var newest: MonotonicTime?
    /// Samples earlier than origin − this are not written.
    static let margin = Duration.milliseconds(500)

    init(storage: any StreamingStorage, folder: String, fileName: String, writer: GcsvWriter) throws(VideoError) {
        self.fileName = fileName; self.writer = writer
        path = "\(folder)/\(fileName)"
        do {
            stream = try storage.createStream(path)
        } catch {
            throw VideoError(.storage, "\(path): \(error)", storageError: error as? HardwareError)
        }
        try put(writer.header())
    }

    /// Appends the rows of `samples` (time-ordered) that are newer than the last one written.
    func append(_ samples: [IMUSample]) throws(VideoError) {
        let from = writer.origin - Self.margin
        var text = ""
        for sample in samples where sample.timestamp >= from && newest.map({ sample.timestamp > $0 }) ?? true {
            text += writer.row(sample)
            newest = sample.timestamp
        }
        if !text.isEmpty { try put(text) }
    }

    func close() throws(VideoError) {
        do { try stream.close() } catch {
            throw VideoError(.storage, "\(path): close: \(error)", storageError: error as? HardwareError)
        }
    }

    private func put(_ text: String) throws(VideoError) {
        do { try Array(text.utf8).withUnsafeBytes { try stream.write($0) } } catch {
            throw VideoError(.storage, "\(path): write: \(error)", storageError: error as? HardwareError)
        }
    }
}

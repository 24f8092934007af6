import Foundation
import Hardware
import Testing
@testable import Video

/// The nice value and name of each thread of this process (/proc/self/task/TID/stat: field 19 is
/// the nice value; the name is between the parentheses).
private func threads() -> [(name: String, nice: Int)] {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    return tasks.compactMap { tid in
        guard let stat = try? String(contentsOfFile: "/proc/self/task/\(tid)/stat", encoding: .utf8),
              let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the name: state is field 3, so nice (field 19) is the 17th after it.
        guard fields.count > 16, let nice = Int(fields[16]) else { return nil }
        return (String(stat[stat.index(after: open)..<close]), nice)
    }
}

/// A recording's encoder must never slow the camera's loop: libx264's worker threads run at a nice
/// value `encoderNiceIncrement` above the thread that opened the encoder.
@Test func theEncodersThreadsRunBelowTheCamera() throws {
    let callerNice = Int(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0))
    var settings = VideoSettings()
    settings.captureFramesPerSecond = 30
    // 1080p: libx264 starts frame threads for a frame this tall (a tiny one it encodes in the caller).
    let encoder = try VideoEncoder(settings: settings, size: PixelSize(width: 1920, height: 1080))
    let workers = threads().filter { $0.name == VideoEncoder.workerThreadName }
    #expect(!workers.isEmpty, "libx264 started no worker threads: \(threads().map(\.name))")
    let lowered = min(callerNice + Int(settings.encoderNiceIncrement), 19)
    #expect(workers.contains { $0.nice >= lowered }, "caller nice \(callerNice), workers \(workers.map(\.nice))")
    withExtendedLifetime(encoder) {}
}

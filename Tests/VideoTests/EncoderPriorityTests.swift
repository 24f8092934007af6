import Foundation
import Synchronization
import Hardware
import LinuxHardware
import ManualLoop
import Testing
@testable import Video

/// A recording's encoding must never outrank the camera's loop, which has a frame deadline: the
/// recording's queue (where the encoder is opened, so libx264's frame threads inherit its nice
/// value) runs at a nice value above the thread that made the service. User-initiated QoS, as it
/// was, ran it at −2, above the loop's 0, and a 1080p recording on the simulated board lost frames
/// at the sensor while the encoder ran ahead.
@Test func theRecordingQueueRunsBelowTheLoop() throws {
    let which = __priority_which_t(PRIO_PROCESS.rawValue)  // who 0: on Linux, the calling thread
    let loopNice = getpriority(which, 0)
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tripod-priority-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let service = RecordingService(storage: try PosixStorage(root: directory.path), loop: ManualEventLoop()) { _ in }
    // async: a sync block would run on the calling thread.
    let measured = Mutex<Int32?>(nil), done = DispatchSemaphore(value: 0)
    service.queue.async { measured.withLock { $0 = getpriority(which, 0) }; done.signal() }
    done.wait()
    let queueNice = try #require(measured.withLock { $0 })
    #expect(queueNice > loopNice, "the recording queue runs at nice \(queueNice), the loop at \(loopNice)")
}

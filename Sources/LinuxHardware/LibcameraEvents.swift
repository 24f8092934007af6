import CCameraShim
import Hardware

/// Receives the shim's callbacks on libcamera's thread and turns them into `CameraEvent`s.
///
/// It copies the metadata, wraps each filled buffer's read-only mapping in a `FrameBuffer` whose
/// release hands the buffer back to the pool (`tc_buffer_release`), and calls the handler, which
/// must only post the event to its loop. The lock is held for a few assignments at most.
final class LibcameraEventSink: Sendable {
    /// What the sink needs to know about stream `i` of the active configuration.
    struct Stream: Sendable {
        var role: StreamRole
        var pixelFormat: PixelFormat
        var size: PixelSize
        var stride: Int
    }

    private struct State: Sendable {
        var handler: (@Sendable (CameraEvent) -> Void)?
        var streams: [Stream] = []
    }

    private let camera: CameraHandle
    private let state = LockedValue(State())

    init(camera: CameraHandle) { self.camera = camera }

    func setHandler(_ handler: (@Sendable (CameraEvent) -> Void)?) { state.withLock { $0.handler = handler } }

    func setStreams(_ streams: [Stream]) { state.withLock { $0.streams = streams } }

    /// The C callback: `context` is an unretained `LibcameraEventSink` that outlives the callback
    /// registration (LibcameraCamera clears the callback before releasing the sink).
    static let callback: tc_event_callback = { context, event in
        guard let context, let event else { return }
        Unmanaged<LibcameraEventSink>.fromOpaque(context).takeUnretainedValue().handle(event.pointee)
    }

    private func handle(_ event: tc_event) {
        let (handler, streams) = state.withLock { ($0.handler, $0.streams) }
        guard let handler else { return }  // untaken buffers go straight back to the pool
        switch event.kind {
        case TC_EVENT_DISCONNECTED:
            handler(.disconnected)
        case TC_EVENT_REQUEST_COMPLETED:
            guard let completion = event.completion else { return }
            handler(.requestCompleted(completedRequest(completion, streams: streams)))
        default:
            return
        }
    }

    private func completedRequest(_ completion: OpaquePointer, streams: [Stream]) -> CompletedRequest {
        let metadata = tc_completion_metadata(completion).map(LibcameraControls.read) ?? [:]
        var buffers: [StreamRole: FrameBuffer] = [:]
        var firstBufferTimestamp: Int64?
        for index in 0..<tc_completion_buffer_count(completion) {
            var view = tc_buffer_view()
            guard tc_completion_buffer(completion, index, &view) == TC_OK else { continue }
            let camera = self.camera
            let (streamIndex, bufferIndex) = (view.stream_index, view.buffer_index)
            let release: @Sendable () -> Void = { camera.releaseBuffer(stream: streamIndex, buffer: bufferIndex) }
            guard Int(streamIndex) < streams.count else { release(); continue }
            let stream = streams[Int(streamIndex)]
            buffers[stream.role] = FrameBuffer(
                pixelFormat: stream.pixelFormat, size: stream.size, stride: stream.stride,
                mapping: UnsafeRawBufferPointer(start: view.data, count: view.length), release: release)
            firstBufferTimestamp = firstBufferTimestamp ?? Int64(truncatingIfNeeded: view.timestamp_ns)
        }
        let timestamp = metadata[ControlName.sensorTimestamp]?.int64Value ?? firstBufferTimestamp ?? 0
        return CompletedRequest(
            cookie: tc_completion_cookie(completion), sequence: UInt64(tc_completion_sequence(completion)),
            sensorTimestamp: MonotonicTime(nanoseconds: timestamp), metadata: metadata, buffers: buffers,
            isComplete: tc_completion_is_complete(completion))
    }
}

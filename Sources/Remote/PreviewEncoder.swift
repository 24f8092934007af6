import Foundation
import Hardware
import Media
import Viewfinder

/// The live preview's one encoder: the camera side offers each streaming frame (never waiting), a
/// thread of its own converts it with the viewfinder's `FrameScaler` to about 640 pixels wide,
/// encodes it once as JPEG (libjpeg-turbo, Media's `JPEGWriter`) and puts it in a latest-frame
/// slot that every MJPEG client reads. A slow client skips frames; nobody waits on a client. A
/// simulated frame brings its own smaller drawing (`FrameBuffer.smaller`), which is converted
/// instead while the whole frame is not drawn.
public final class PreviewEncoder: @unchecked Sendable {
    public let width: Int
    public let interval: Duration
    public let quality: Int
    /// Clients wait on it for a new JPEG (broadcast); it guards the fields below.
    private let condition = NSCondition()
    /// The encoder's own wake-up (a frame is pending, or stop): a semaphore apart from `condition`,
    /// whose `signal()` would wake one waiting client instead of the encoder (frames then sat
    /// pending until a later offer happened to wake it, most of them with 16 clients).
    private let wake = DispatchSemaphore(value: 0)
    // Guarded by `condition`:
    private var pending: (frame: FrameBuffer, sensorTimestamp: Int64?)?
    private var latest: [UInt8] = []
    private var latestSensorTimestamp: Int64?
    private var sequence: UInt64 = 0
    private var running = true
    private var watchers = 0
    /// The sequence when the first of the current watchers joined: later ones are fresh.
    private var watchingSince: UInt64 = 0
    /// When the next frame is due (nanoseconds on the frames' clock), nil before the first.
    private var nextDue: Int64?
    private var counts = Counts()
    private var lastError: String?

    /// Frames offered, taken for encoding, and encoded (what 1 or 16 clients cost the camera side).
    public struct Counts: Sendable, Equatable {
        public var offered = 0
        public var accepted = 0
        public var encoded = 0
    }

    public init(width: Int = 640, maximumFramesPerSecond: Int = 30, quality: Int = 80) {
        self.width = width
        self.interval = .nanoseconds(1_000_000_000 / max(1, maximumFramesPerSecond))
        self.quality = quality
        let thread = Thread { [weak self] in self?.encodeLoop() }
        thread.name = "tripod-remote-preview"
        thread.start()
    }

    /// Camera side (any thread): offers a streaming frame; kept only when someone watches and the
    /// last one taken is at least one frame interval older (a quarter interval early is allowed, so a
    /// 30 fps camera's jitter is not halved to 15). The interval is counted on the frames'
    /// SensorTimestamps when given (the sensor's own cadence: a frame the loop delivered late does
    /// not push the next one out), else on `now`. Replaces a frame not yet taken. Never blocks on
    /// encoding: the lock guards a reference swap.
    /// `sensorTimestampNanoseconds`: the frame's SensorTimestamp (CLOCK_MONOTONIC on Linux), sent
    /// with its JPEG so a client can measure the latency (tools/bench remote).
    public func offer(_ frame: FrameBuffer, sensorTimestampNanoseconds: Int64? = nil, at now: ContinuousClock.Instant = .now) {
        let time = sensorTimestampNanoseconds ?? Self.nanoseconds(now)
        let step = Self.nanoseconds(interval), early = step / 4
        condition.lock()
        counts.offered += 1
        guard running, watchers > 0, nextDue.map({ time >= $0 - early }) ?? true else { condition.unlock(); return }
        nextDue = max(nextDue ?? .min, time - early) + step
        counts.accepted += 1
        let replaced = pending
        pending = (frame, sensorTimestampNanoseconds)
        condition.unlock()
        wake.signal()
        _ = replaced  // released outside the lock
    }

    private static let origin = ContinuousClock.now
    /// `instant` as nanoseconds from a fixed origin (the cap's clock when no SensorTimestamp is given).
    static func nanoseconds(_ instant: ContinuousClock.Instant) -> Int64 { nanoseconds(instant - origin) }
    static func nanoseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
    }

    /// The newest JPEG after `sequence`, waiting at most `timeout`; nil when none came (or stopped).
    public func frame(after sequence: UInt64, timeout: Duration) -> (jpeg: [UInt8], sequence: UInt64, sensorTimestamp: Int64?)? {
        let deadline = Date(timeIntervalSinceNow: timeout.secondsValue)
        condition.lock()
        defer { condition.unlock() }
        while running, self.sequence <= sequence {
            if !condition.wait(until: deadline) { break }
        }
        return self.sequence > sequence && !latest.isEmpty ? (latest, self.sequence, latestSensorTimestamp) : nil
    }

    /// A client starts watching (the encoder works only while someone does); returns the sequence
    /// to read after. The JPEG in the slot is sent at once only when it was encoded since watching
    /// began: with nobody watching the encoder takes no frames, so an older one is as old as the
    /// last client's leaving.
    public func watcherJoined() -> UInt64 {
        condition.lock()
        defer { condition.unlock() }
        if watchers == 0 { watchingSince = sequence }
        watchers += 1
        return max(watchingSince, sequence - min(sequence, 1))
    }
    /// A client stops watching.
    public func watcherLeft() { condition.lock(); watchers = max(0, watchers - 1); condition.unlock() }

    public var isRunning: Bool { condition.lock(); defer { condition.unlock() }; return running }
    public var frameCounts: Counts { condition.lock(); defer { condition.unlock() }; return counts }
    public var watcherCount: Int { condition.lock(); defer { condition.unlock() }; return watchers }
    /// The last conversion or encoding failure, if any.
    public var failure: String? { condition.lock(); defer { condition.unlock() }; return lastError }

    /// Ends the thread and wakes every waiting client.
    public func stop() {
        condition.lock()
        running = false
        pending = nil
        condition.broadcast()
        condition.unlock()
        wake.signal()
    }

    private func encodeLoop() {
        let scaler = FrameScaler(filter: .bilinear)
        var canvas = Canvas(size: PixelSize(width: 0, height: 0))
        while true {
            condition.lock()
            guard running else { condition.unlock(); return }
            guard let (offered, sensorTimestamp) = pending else {
                condition.unlock()
                wake.wait()
                continue
            }
            pending = nil
            condition.unlock()
            // The simulated camera's smaller drawing of the frame when it has one (never drawn whole
            // only to be scaled down), else the frame.
            let frame = Self.source(offered, width: width)
            let result = Result { () throws -> [UInt8] in
                let size = Self.previewSize(of: frame.size, width: width)
                if canvas.size != size { canvas = Canvas(size: size) }
                try scaler.draw(frame, into: &canvas)
                return try JPEGWriter.encode(Self.packedRGB(canvas), quality: quality)
            }
            condition.lock()
            switch result {
            case .success(let jpeg):
                latest = jpeg
                latestSensorTimestamp = sensorTimestamp
                sequence += 1
                counts.encoded += 1
                condition.broadcast()
            case .failure(let error):
                lastError = "\(error)"
            }
            condition.unlock()
        }
    }

    /// What to convert: the frame's smaller drawing (`FrameBuffer.smaller`, the simulated camera's)
    /// when it is at least `width` wide and the whole frame is not drawn yet, else the frame.
    static func source(_ frame: FrameBuffer, width: Int) -> FrameBuffer {
        guard !frame.isRendered, let smaller = frame.smaller, smaller.size.width >= min(width, frame.size.width) else { return frame }
        return smaller
    }

    /// `width` wide (never wider than the frame), the frame's aspect kept, even sides.
    static func previewSize(of frame: PixelSize, width: Int) -> PixelSize {
        guard frame.width > 0, frame.height > 0 else { return PixelSize(width: 2, height: 2) }
        let w = max(2, min(width, frame.width) & ~1)
        let h = max(2, (w * frame.height / frame.width) & ~1)
        return PixelSize(width: w, height: h)
    }

    /// The canvas (XRGB8888, 0x00RRGGBB) as R, G, B bytes: a `PixelFormat.bgr888` frame.
    static func packedRGB(_ canvas: Canvas) -> FrameBuffer {
        var bytes = [UInt8](repeating: 0, count: canvas.pixels.count * 3)
        canvas.pixels.withUnsafeBufferPointer { source in
            bytes.withUnsafeMutableBufferPointer { out in
                for (i, p) in source.enumerated() {
                    out[3 * i] = UInt8(truncatingIfNeeded: p >> 16)
                    out[3 * i + 1] = UInt8(truncatingIfNeeded: p >> 8)
                    out[3 * i + 2] = UInt8(truncatingIfNeeded: p)
                }
            }
        }
        return FrameBuffer(pixelFormat: .bgr888, size: canvas.size, stride: canvas.width * 3, bytes: bytes)
    }
}

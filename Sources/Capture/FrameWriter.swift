import Dispatch
import Foundation
import Controls
import Hardware
import Media

/// Runs the `CaptureStore` (synchronous, hundreds of ms per 12 MP frame) on its own serial queue,
/// so the supervisor's loop never waits for encoding or fsync. Every result hops back to the
/// loop through `loop.execute`.
///
/// Every operation passes through `intake` first, a serial queue that copies each frame's buffers
/// into memory at once: libcamera's buffers are lent from a small pool, and holding them while
/// earlier frames encode would starve the camera. Order is kept (intake → queue, both serial).
///
/// The store and the current recorder are touched only on `queue`: that confinement is what makes
/// the `@unchecked Sendable` sound.
public final class FrameWriter: @unchecked Sendable {
    public let queue = DispatchQueue(label: "tripod.capture.writer")
    private let intake = DispatchQueue(label: "tripod.capture.intake")
    public let loop: any EventLoop
    private let storage: any Storage
    private let configuration: CaptureStore.Configuration
    private var store: CaptureStore?
    /// The bracket being written, on `queue`: closed between brackets (and after a refused `begin`),
    /// else the recorder `begin` opened, until `end`.
    private var bracket = OpenBracket.closed

    /// Whether a bracket is open for writing (`begin` to `end`).
    private enum OpenBracket {
        case closed
        case open(BracketRecorder)
    }

    public init(storage: any Storage, configuration: CaptureStore.Configuration, loop: any EventLoop) {
        self.storage = storage; self.configuration = configuration; self.loop = loop
    }

    /// Opens the store (scans folders for sequence numbers) ahead of the first bracket.
    public func open(then done: @escaping @Sendable (Error?) -> Void) {
        submit {
            let error: Error?
            do { _ = try self.openStore(); error = nil } catch let e { error = e }
            self.loop.execute { done(error) }
        }
    }

    /// Begins a bracket (room check, sequence number, date folder); `done` gets its id or the error.
    public func begin(_ start: BracketStart, then done: @escaping @Sendable (Result<String, MediaError>) -> Void) {
        submit {
            let result: Result<String, MediaError>
            do {
                let recorder = try self.openStore().beginBracket(start)
                self.bracket = .open(recorder)
                result = .success(recorder.id)
            } catch let e as MediaError {
                self.bracket = .closed
                result = .failure(e)
            } catch {
                self.bracket = .closed
                result = .failure(MediaError(.storage, "bracket not started: \(error)"))
            }
            self.loop.execute { done(result) }
        }
    }

    /// Saves one frame of the current bracket. `done` gets its record, nil when no bracket is open
    /// (it was refused or already failed), or the error (the bracket is then failed).
    public func add(_ frame: CompletedRequest, requested: FrameSettings, index: Int, clamped: Bool,
             stabilization: StabilizationRecord, sensorHDR: Bool, focus: FocusRecord? = nil,
             then done: @escaping @Sendable (Result<FrameRecord?, MediaError>) -> Void) {
        intake.async {
            let frame = Self.copied(frame)  // the lent buffers go back to the camera here
            self.queue.async {
                let result: Result<FrameRecord?, MediaError>
                if case .open(let recorder) = self.bracket, recorder.sidecar.result.status == .inProgress {
                    do {
                        result = .success(try recorder.addFrame(frame, requested: requested, index: index,
                                                                clampedSettings: clamped, stabilization: stabilization,
                                                                sensorHDR: sensorHDR, focus: focus))
                    } catch let e as MediaError {
                        if recorder.sidecar.result.status == .inProgress { try? recorder.fail(reason: e.message) }
                        result = .failure(e)
                    } catch {
                        try? recorder.fail(reason: "\(error)")
                        result = .failure(MediaError(.storage, "\(error)"))
                    }
                } else {
                    result = .success(nil)
                }
                self.loop.execute { done(result) }
            }
        }
    }

    /// Ends the current bracket: finished (complete) or failed with `failure`. `done` gets the final
    /// sidecar (nil when none was open) or the storage error.
    public func end(failure: String?, then done: @escaping @Sendable (Result<BracketSidecar?, MediaError>) -> Void) {
        submit {
            let result: Result<BracketSidecar?, MediaError>
            if case .open(let recorder) = self.bracket {
                do {
                    if let failure {
                        try recorder.fail(reason: failure)
                    } else if recorder.sidecar.result.status == .inProgress {
                        try recorder.finish()
                    }
                    result = .success(recorder.sidecar)
                } catch let e as MediaError {
                    result = .failure(e)
                } catch {
                    result = .failure(MediaError(.storage, "\(error)"))
                }
            } else {
                result = .success(nil)
            }
            self.bracket = .closed
            self.loop.execute { done(result) }
        }
    }

    /// Writes one more file of the bracket (its gyro log, a shot's report) atomically, after the
    /// frames before it; `render` makes its bytes on the writer's queue, never on the loop.
    /// `creatingDirectory`: a folder made first when missing (a shot's report beside a video whose
    /// folder the encoder makes later).
    public func writeFile(rendering render: @escaping @Sendable () -> [UInt8], to path: String, creatingDirectory: String? = nil,
                   then done: @escaping @Sendable ((any Error)?) -> Void) {
        submit {
            let error: (any Error)?
            do {
                if let creatingDirectory { try self.storage.createDirectory(creatingDirectory) }
                try self.storage.writeAtomically(render(), to: path)
                error = nil
            } catch let e { error = e }
            self.loop.execute { done(error) }
        }
    }

    /// Waits until everything submitted so far has run (tests and shutdown; blocks the caller).
    public func drain() {
        intake.sync {}
        queue.sync {}
    }

    private func submit(_ work: @escaping @Sendable () -> Void) {
        let queue = self.queue
        intake.async { queue.async(execute: work) }
    }

    /// The request with its buffers copied into memory it owns.
    public static func copied(_ frame: CompletedRequest) -> CompletedRequest {
        var copy = frame
        copy.buffers = frame.buffers.mapValues { FrameBuffer(pixelFormat: $0.pixelFormat, size: $0.size, stride: $0.stride, bytes: $0.bytes) }
        return copy
    }

    private func openStore() throws -> CaptureStore {
        if let store { return store }
        let made = try CaptureStore(storage: storage, configuration: configuration)
        store = made
        return made
    }
}

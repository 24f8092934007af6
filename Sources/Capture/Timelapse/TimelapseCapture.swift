import Camera
import Media

/// What the time-lapse asks of the capture service: the camera as a bracket sees it, the largest
/// bracket, the capture format and the store's free space to read; its shots started and its XMP
/// files written. `CaptureService` is the one; the time-lapse never configures the camera or the store.
///
/// Loop-confined, like the service.
public protocol TimelapseCapture: AnyObject {
    /// The attached camera as a bracket sees it, read only; nil while none is.
    var bracketCamera: (any BracketCamera)? { get }
    /// The most frames one bracket may take on the attached camera; nil while none is attached.
    var maximumBracketFrames: Int? { get }
    /// Files written per frame (`capture.format`), as in force.
    var captureFormat: CaptureFormat { get }
    /// The console's key of `captureFormat`, for messages that name the setting.
    var captureFormatKey: String { get }
    /// Free space where captures are saved, bytes.
    func freeStorageBytes() throws -> Int64
    /// Starts `plan` as time-lapse shot `record`; `observer` hears each frame kept and the end.
    func startTimelapseShot(_ plan: BracketPlan, record: TimelapseShotRecord,
                            observer: @escaping (CaptureProgress) -> Void) throws(CaptureError)
    /// Writes a file through the capture store's writer, after the frames submitted before it;
    /// nothing while no camera is attached.
    func writeFile(rendering render: @escaping @Sendable () -> [UInt8], to path: String,
                   then done: @escaping @Sendable ((any Error)?) -> Void)
}

extension CaptureService: TimelapseCapture {
    public var bracketCamera: (any BracketCamera)? { camera }

    public var maximumBracketFrames: Int? { camera.map { capacity($0).maximumFrames } }

    public func freeStorageBytes() throws -> Int64 { try storage.freeBytes() }

    public func startTimelapseShot(_ plan: BracketPlan, record: TimelapseShotRecord,
                                   observer: @escaping (CaptureProgress) -> Void) throws(CaptureError) {
        try start(plan, trigger: .timelapse(record), observer: observer)
    }

    public func writeFile(rendering render: @escaping @Sendable () -> [UInt8], to path: String,
                          then done: @escaping @Sendable ((any Error)?) -> Void) {
        guard let camera else { return }
        writer(for: camera).writeFile(rendering: render, to: path, then: done)
    }
}

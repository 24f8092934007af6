import Hardware

// The narrow capabilities the services get of the camera: its one owner (`CameraSlot`) gives each
// service only what it needs, and attaching or releasing the camera stays the composition's.

/// The camera's owner, read only: the attached controller, to drive; never attaching or
/// releasing it (the capture service, which hands it to its bracket engine and writer).
public protocol AttachedCamera: AnyObject {
    /// The attached controller; nil while none is.
    var controller: CameraController? { get }
}

/// Video stabilization's hold on the camera: the ScalerCrop on its streaming requests.
public protocol StreamingCrop: AnyObject {
    /// True when a camera is attached and has a ScalerCrop control.
    var canCropStreaming: Bool { get }
    /// Puts `rect` (sensor pixels; the zoom crops within it about its centre, keeping the shift
    /// whole) on the attached camera's streaming requests; nil drops it. No camera: nothing.
    func cropStreaming(to rect: PixelRect?)
}

/// What recording asks of the camera: its format and streams, and the video stream and its rate.
public protocol VideoStreamCamera: AnyObject {
    var activeFormat: FormatSelection { get }
    var isStreaming: Bool { get }
    var processedRole: StreamRole { get }
    var processedStreamSize: PixelSize? { get }
    var videoStream: StreamConfiguration? { get }
    var videoStreamNote: String? { get }
    var videoStreamRequest: VideoStreamRequest? { get }
    func requestVideoStream(_ request: VideoStreamRequest?) throws
}

/// What video HDR asks of the camera: which camera and format, the HDR in force, and HdrMode on
/// its next requests.
public protocol HDRCamera: AnyObject {
    var device: any CameraDevice { get }
    var activeFormat: FormatSelection { get }
    var processedRole: StreamRole { get }
    var sensorHDROn: Bool { get }
    var hdrMode: HdrModeValue? { get }
    func setHdrMode(_ mode: HdrModeValue?) throws(CameraError)
}

extension CameraController: VideoStreamCamera, HDRCamera {}

extension CameraSlot: AttachedCamera, StreamingCrop {
    public var canCropStreaming: Bool { controller?.device.controlInfo[ControlName.scalerCrop] != nil }

    public func cropStreaming(to rect: PixelRect?) {
        guard let controller else { return }
        controller.streamingControls[ControlName.scalerCrop] = rect.map { .rectangle(controller.zoomed($0)) }
    }
}

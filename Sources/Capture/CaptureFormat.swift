/// The files each captured frame is written as (`capture.format`).
public enum CaptureFormat: String, Sendable, CaseIterable {
    case dng, jpeg, both

    /// True when the frame's raw buffer is written as a DNG.
    public var writesDNG: Bool { self != .jpeg }
    /// True when the processed buffer is written as a JPEG.
    public var writesJPEG: Bool { self != .dng }
}

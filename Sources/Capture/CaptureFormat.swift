/// The files each captured frame is written as (`capture.format`).
public enum CaptureFormat: String, Sendable, CaseIterable {
    case dng, jpeg, both
}

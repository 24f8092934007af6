import Hardware

/// What a camera's streams are for, handed to `CameraController.startStreaming`: the processed
/// stream's role and the buffers kept for bracket requests. The capture service decides it (a still
/// stream once captures want full-size stills); the controller keeps it across its own restarts.
public struct StreamingConfiguration: Equatable, Sendable {
    /// The processed stream's role: viewfinder for preview, stillCapture for full-size stills.
    public var processedRole: StreamRole
    /// Buffers per stream beyond the regular requests' (a bracket request needs one in each stream).
    public var bracketBuffersPerStream: Int

    public init(processedRole: StreamRole = .viewfinder, bracketBuffersPerStream: Int = 0) {
        self.processedRole = processedRole; self.bracketBuffersPerStream = bracketBuffersPerStream
    }

    /// A still stream with `bracketBuffers` buffers per stream for bracket requests.
    public static func stills(bracketBuffersPerStream bracketBuffers: Int) -> StreamingConfiguration {
        StreamingConfiguration(processedRole: .stillCapture, bracketBuffersPerStream: bracketBuffers)
    }
}

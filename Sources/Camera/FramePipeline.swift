import Hardware

/// A completed frame as the pipeline's stages see it.
public struct PipelineFrame {
    /// Which requests a frame comes from.
    public enum Kind: Equatable, Sendable {
        /// A regular (streaming) request: re-queued as it completes.
        case regular
        /// A request queued with `CameraController.queueRequest` (a bracket's step); its own
        /// completion takes it after the stages before the bracket stage have seen it.
        case requested
    }

    /// The completed request: buffers, metadata, cookie.
    public let request: CompletedRequest
    /// The state read back from its metadata.
    public let state: FrameState
    public let kind: Kind

    public init(request: CompletedRequest, state: FrameState, kind: Kind) {
        self.request = request; self.state = state; self.kind = kind
    }
}

/// What a stage did with a frame.
public enum FrameDisposition: Equatable, Sendable {
    /// The next stage sees it.
    case passOn
    /// This stage took it: the stages after it do not see it.
    case claim
}

/// One consumer of completed frames, registered once in a `FramePipeline`. Runs on the
/// controller's loop, one frame at a time, in the pipeline's order.
public protocol FrameStage {
    /// What the stage is, for the pipeline's description (`FramePipeline.stageNames`).
    var name: String { get }
    /// Sees `frame`; `.claim` keeps it from the stages after this one.
    func frameCompleted(_ frame: PipelineFrame) -> FrameDisposition
}

/// A stage that looks at every frame it is handed and never claims one.
public struct FrameObserver: FrameStage {
    public let name: String
    private let observe: (PipelineFrame) -> Void

    public init(_ name: String, _ observe: @escaping (PipelineFrame) -> Void) {
        self.name = name; self.observe = observe
    }

    public func frameCompleted(_ frame: PipelineFrame) -> FrameDisposition {
        observe(frame)
        return .passOn
    }
}

/// The ordered stages every complete frame of one `CameraController` goes through, registered
/// when it is made (an idea from swift-nio's ChannelPipeline: handlers in a fixed order, each of
/// which may stop a message; here a frame, and no handler is added or swapped afterwards).
///
/// The order, as composed by the supervisor:
/// 1. `everyFrame`: the recorder. It sees every frame, a bracket's too: while the video stream is
///    configured every request fills it, so a still or bracket during a recording leaves no gap.
/// 2. The bracket stage (`BracketStage`, always present): claims the frames of requests queued
///    with `queueRequest` (their completion takes them), and lends each regular frame to the
///    bracket engaged in it, if any (zero shutter lag, or waiting for a shot's instant).
/// 3. `streaming`, the regular frames only: the capture waiting for a first frame, the video
///    stabilizer, the HDR meter, the viewfinder and preview, the trigger (motion, a triggered
///    recording's end).
///
/// A stage that claims a frame keeps it from every stage after it. Incomplete (cancelled)
/// requests never enter the pipeline.
public struct FramePipeline {
    /// The stage brackets are handed to (`BracketEngine.start`).
    public let bracket: BracketStage
    /// Every stage, in the order a frame meets them.
    public let stages: [any FrameStage]

    /// A pipeline of `everyFrame`, the bracket stage, then `streaming` (see the type's comment).
    public init(everyFrame: [any FrameStage] = [], streaming: [any FrameStage] = []) {
        let bracket = BracketStage()
        self.bracket = bracket
        stages = everyFrame + [bracket] + streaming
    }

    /// The stages' names, in order.
    public var stageNames: [String] { stages.map(\.name) }

    /// Hands `frame` to the stages in order until one claims it.
    @discardableResult
    public func deliver(_ frame: PipelineFrame) -> FrameDisposition {
        for stage in stages where stage.frameCompleted(frame) == .claim { return .claim }
        return .passOn
    }
}

/// The pipeline's bracket stage: idle, or holding the one bracket that takes regular frames
/// (`BracketEngine`, zero shutter lag) or waits on them for a shot's instant. Claims every frame
/// of a request queued with `queueRequest`. Loop-confined, like the controller.
public final class BracketStage: FrameStage {
    /// What the stage does with regular frames.
    public enum State {
        case idle
        /// A shot waiting, on the regular frames, for the point at which it queues.
        case waitingForInstant(BracketEngine)
        /// A capture of the current settings that may keep a regular frame as its still.
        case takingRegularFrames(BracketEngine)
    }

    private(set) var state = State.idle
    public let name = "bracket"

    init() {}

    /// True while a bracket is engaged.
    public var isEngaged: Bool {
        if case .idle = state { return false }
        return true
    }

    /// Hands the regular frames to `engine` (in place of any engine engaged before).
    func engage(_ state: State) { self.state = state }

    /// Goes idle if `engine` is the one engaged.
    func release(_ engine: BracketEngine) {
        switch state {
        case .waitingForInstant(let held) where held === engine, .takingRegularFrames(let held) where held === engine:
            state = .idle
        default:
            break
        }
    }

    public func frameCompleted(_ frame: PipelineFrame) -> FrameDisposition {
        guard frame.kind == .regular else { return .claim }
        switch state {
        case .idle: break
        case .waitingForInstant(let engine): engine.regularFrameBeforeInstant(frame.request)
        case .takingRegularFrames(let engine): engine.regularFrameCompleted(frame.request)
        }
        return .passOn
    }
}

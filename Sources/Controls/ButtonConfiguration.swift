import Hardware

/// What a button gesture does, as written in the configuration: "capture", "bracket:<preset>",
/// "record" (toggle recording) or "af" (trigger autofocus).
public enum ButtonAction: Hashable, Sendable, Codable, CustomStringConvertible {
    /// One still with the current settings.
    case capture
    /// Runs the named bracket preset ("hdr5", "focus-stack").
    case bracket(preset: String)
    /// Starts or stops recording.
    case toggleRecording
    /// Starts an autofocus cycle (libcamera `AfTrigger` start).
    case triggerAutofocus

    /// Parses the configuration spelling; nil for anything else.
    public init?(parsing text: String) {
        switch text {
        case "capture": self = .capture
        case "record": self = .toggleRecording
        case "af": self = .triggerAutofocus
        default:
            let prefix = "bracket:"
            guard text.hasPrefix(prefix), text.count > prefix.count else { return nil }
            self = .bracket(preset: String(text.dropFirst(prefix.count)))
        }
    }

    public var description: String {
        switch self {
        case .capture: return "capture"
        case .bracket(let preset): return "bracket:\(preset)"
        case .toggleRecording: return "record"
        case .triggerAutofocus: return "af"
        }
    }

    /// True for actions that start a capture and so wait for (or are refused by) a running bracket.
    public var startsCapture: Bool {
        switch self {
        case .capture, .bracket: return true
        case .toggleRecording, .triggerAutofocus: return false
        }
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let action = ButtonAction(parsing: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                debugDescription: "unknown button action \"\(text)\" (capture, bracket:<preset>, record, af)"))
        }
        self = action
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// A gesture the button logic recognises.
public enum ButtonGesture: String, Hashable, Sendable, Codable {
    case press
    case doublePress = "double-press"
    case longPress = "long-press"
    /// The half-press contact of a two-stage button closed (lock focus and exposure).
    case halfPress = "half-press"
    /// The half-press contact opened again (unlock).
    case halfRelease = "half-release"
}

/// What happens to a capture press while a bracket is running.
public enum BusyPolicy: String, Hashable, Sendable, Codable {
    /// Keep at most one press and run it when the bracket ends; refuse any beyond that.
    case queueOne = "queue-one"
    /// Refuse every press while busy.
    case reject
}

/// How edges are debounced (both work on kernel timestamps).
public enum DebounceMode: String, Hashable, Sendable, Codable {
    /// Accept the first edge after the line was quiet for the window, at once (zero added lag);
    /// ignore the bounces that follow. A spike on an idle line counts as a (very short) press.
    case leadingEdge = "leading-edge"
    /// Accept a level only once the line has been quiet for the window (adds the window as lag,
    /// rejects spikes shorter than the window).
    case settled
}

/// The button settings: debounce, gesture timing, gesture → action map, busy policy.
public struct ButtonConfiguration: Hashable, Sendable, Codable {
    /// Debounce window in milliseconds (edges closer than this form one burst).
    public var debounceWindowMilliseconds: Double = 10
    public var debounceMode: DebounceMode = .leadingEdge
    /// Longest gap, release to next press, for two presses to count as a double press, in ms.
    public var doublePressWindowMilliseconds: Double = 300
    /// Hold time from which a press is a long press, in ms.
    public var longPressThresholdMilliseconds: Double = 800
    /// Action per gesture; nil leaves the gesture unused. Only `press` mapped (the default) lets a
    /// press fire on its down edge; mapping a double or long press delays the single press until
    /// the gesture is told apart (release, or the end of the double-press window).
    public var press: ButtonAction? = .capture
    public var doublePress: ButtonAction?
    public var longPress: ButtonAction?
    public var whileBusy: BusyPolicy = .queueOne
    /// When true, a missing or busy button line stops start-up; otherwise the supervisor carries on.
    public var required: Bool = false

    public init() {}

    public var debounceWindow: Duration { .microseconds(Int64((debounceWindowMilliseconds * 1000).rounded())) }
    public var doublePressWindow: Duration { .microseconds(Int64((doublePressWindowMilliseconds * 1000).rounded())) }
    public var longPressThreshold: Duration { .microseconds(Int64((longPressThresholdMilliseconds * 1000).rounded())) }

    /// The action mapped to `gesture`, if any (half-press gestures have none; they lock 3A).
    public func action(for gesture: ButtonGesture) -> ButtonAction? {
        switch gesture {
        case .press: return press
        case .doublePress: return doublePress
        case .longPress: return longPress
        case .halfPress, .halfRelease: return nil
        }
    }
}

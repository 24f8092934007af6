import Camera
import Controls
import Hardware

/// The shutter button's outputs, at the capture service that owns the button: a capture or a
/// preset's bracket starts here, autofocus goes to the camera; what is not the capture service's
/// (recording, the settings a half press changes, a failed line for the journal) flows out as an
/// event (`onButtonEvent`).
extension CaptureService {
    /// What a button gesture asks of others.
    public enum ButtonEvent: Equatable {
        /// Start a recording, or stop the one running.
        case toggleRecording
        /// Half press: hold focus and exposure.
        case lockFocusAndExposure
        /// Half press released: put them back.
        case unlockFocusAndExposure
        /// A button line stopped delivering edges: the button no longer works.
        case lineFailed(line: String, reason: String)
    }

    /// What the button logic decided.
    public func handle(buttonOutput: ButtonOutput) {
        switch buttonOutput {
        case .perform(let command):
            let plan: BracketPlan
            switch command.action {
            case .capture:
                plan = .single
            case .bracket(let preset):
                do throws(CaptureError) { plan = try presetPlan(named: preset) } catch {
                    buttonCaptureFailed(error.message, command)
                    return
                }
            case .triggerAutofocus:
                do { try camera?.triggerAutofocus() } catch {
                    emit(.autofocusFailed(reason: "\(error)"))
                }
                return
            case .toggleRecording:
                onButtonEvent(.toggleRecording)
                return
            }
            do throws(CaptureError) {
                // A press made before a stop began, or one of a simulated gesture the stop waits
                // for (`button press` just before the end of piped input), still captures.
                let beforeStop = (stopRequestedAt.map { command.edgeTimestamp < $0 } ?? false) || work.contains("button")
                try start(plan, trigger: .button(edge: command.edgeTimestamp, queued: command.wasQueued), admitted: beforeStop)
            } catch {
                buttonCaptureFailed(error.message, command)
            }
        case .queued(let command):
            emit(.buttonQueued(command.action))
        case .rejected(let command, let reason):
            emit(.buttonRejected(command.action, reason: reason))
        case .lineFailed(let line, let reason):
            onButtonEvent(.lineFailed(line: line, reason: reason))
        case .lockFocusAndExposure:
            onButtonEvent(.lockFocusAndExposure)
        case .unlockFocusAndExposure:
            onButtonEvent(.unlockFocusAndExposure)
        }
    }

    /// The plan of the preset `name`; throws when there is none (or it no longer parses).
    public func presetPlan(named name: String) throws(CaptureError) -> BracketPlan {
        guard let arguments = presets[name] else { throw CaptureError.missingPreset(name) }
        return try readBracket(arguments)
    }

    /// A button capture that could not start: said as bracket.failed, the button may take the next
    /// press, and the LED shows the error.
    private func buttonCaptureFailed(_ reason: String, _ command: ButtonCommand) {
        let trigger = CaptureTrigger.button(edge: command.edgeTimestamp, queued: command.wasQueued)
        emit(.bracketFailed(BracketFailure(bracketID: nil, reason: reason, framesKept: 0, trigger: trigger)))
        button.captureDidFinish()
        showPattern(.error)
    }
}

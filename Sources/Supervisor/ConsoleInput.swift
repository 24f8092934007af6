import Hardware
import Console
import Transports

extension Supervisor {
    /// Acts on what a session's line editor produced from one read: runs lines, answers rejected
    /// lines, echoes, and drops what exceeds the flood limit (with one `err flood` reply).
    func consume(_ outputs: [LineAssembler.Output], from session: ConsoleSession) {
        let limit = ConsoleInputLimits.linesPerRead(for: session.kind)
        var linesSeen = 0
        var dropped = 0
        for output in outputs {
            if session.isClosed { return }
            switch output {
            case .line(let text):
                if text.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
                linesSeen += 1
                if let limit, linesSeen > limit { dropped += 1; continue }
                run(line: text, from: session)
            case .rejected(let error):
                linesSeen += 1
                if let limit, linesSeen > limit { dropped += 1; continue }
                session.send(.error(error))
            case .interrupted:
                break
            case .echo(let bytes):
                session.output.echo(bytes)
            }
        }
        if dropped > 0 && !session.isClosed {
            session.send(.err(.flood, "dropped \(dropped) of \(linesSeen) lines received at once; at most \(limit ?? 0) lines per read are run (wait for each reply)"))
        }
    }
}

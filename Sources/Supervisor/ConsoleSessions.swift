import Console
import Transports

/// The consoles attached to the supervisor, each with an id given once, in the order they came.
struct ConsoleSessions {
    private var byID: [Int: ConsoleSession] = [:]
    private var nextID = 1

    /// A new session with the next id, kept until `close`.
    mutating func open(name: String, kind: ConsoleSession.Kind, output: any ConsoleOutput, echoes: Bool) -> ConsoleSession {
        let session = ConsoleSession(id: nextID, name: name, kind: kind, output: output, echoes: echoes)
        nextID += 1
        byID[session.id] = session
        return session
    }

    /// Closes the session and forgets it.
    mutating func close(_ session: ConsoleSession) {
        session.close()
        byID[session.id] = nil
    }

    /// The sessions still open, oldest first.
    var open: [ConsoleSession] { byID.values.filter { !$0.isClosed }.sorted { $0.id < $1.id } }

    /// Every session kept, closed or not (a stop closes the clients' outputs).
    var all: [ConsoleSession] { Array(byID.values) }
}

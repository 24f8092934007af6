import Foundation

/// Waits until `condition` holds (a reply, an event, a file, a SUBACK), checking it every `every`
/// (more slowly when it asks a child process), for at most `seconds`; true when it held. The limit
/// is a safety net, not a verdict on speed: a loaded machine makes things slow, not wrong.
/// `condition` may move a manual clock each turn.
public func waitUntil(seconds: Double = 60, every interval: Duration = .milliseconds(20),
                      _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    let pause = useconds_t(interval.components.seconds * 1_000_000 + interval.components.attoseconds / 1_000_000_000_000)
    while Date() < deadline {
        if try condition() { return true }
        usleep(pause)
    }
    return try condition()
}

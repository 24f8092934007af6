import Foundation

/// Waits until `condition` holds (a reply, an event, a file, a SUBACK), checking every 20 ms, for
/// at most `seconds`; true when it held. The limit is a safety net, not a verdict on speed: a
/// loaded machine makes things slow, not wrong. `condition` may move a manual clock each turn.
public func waitUntil(seconds: Double = 60, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try condition() { return true }
        usleep(20_000)
    }
    return try condition()
}

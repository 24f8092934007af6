import Foundation

/// What can stop `tripod collect`; the command line turns each into words (`description`).
public enum CollectError: Error, Sendable, CustomStringConvertible {
    /// A libcurl call failed: the call and curl_easy_strerror's words.
    case curl(call: String, message: String)
    /// The broker could not be used (libmosquitto's words).
    case broker(String)
    /// A file given on the command line (key, credentials, CA) cannot be used.
    case credential(String)
    /// No report of the shot asked for came from the broker, and no rig had a part of it.
    case noShot(String)
    /// DIR, or a file below it, cannot be written.
    case storage(String)
    /// `--then`'s command could not be started.
    case then(String)

    public var description: String {
        switch self {
        case .curl(let call, let message): return "libcurl: \(call): \(message)"
        case .broker(let message): return "broker: \(message)"
        case .credential(let message): return message
        case .noShot(let message): return message
        case .storage(let message): return "storage: \(message)"
        case .then(let message): return "--then: \(message)"
        }
    }
}

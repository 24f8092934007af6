/// The RTSP digest user and password from the file `stream.rtsp.credentials` names: the user on
/// line 1, the password on line 2 (read and checked at the edge: `StreamWiring.swift` in Supervisor).
public struct StreamCredentials: Sendable, Equatable {
    public var user: String
    public var password: String

    public init(user: String, password: String) { self.user = user; self.password = password }
}

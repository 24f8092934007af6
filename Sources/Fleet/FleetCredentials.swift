/// The broker's user and password, from the file `fleet.credentials` names: the user on the first
/// line, the password on the second (read and checked at the edge: FleetConsole's
/// `FleetCredentials.load`, which refuses a file that is not mode 0600).
public struct FleetCredentials: Sendable, Equatable {
    public var user: String
    public var password: String

    public init(user: String, password: String) { self.user = user; self.password = password }
}

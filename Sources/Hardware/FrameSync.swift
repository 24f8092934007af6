/// Raspberry Pi's frame sync, as its libcamera fork does it (IPA algorithm `rpi.sync`, tags
/// v0.4.0+rpt20250127 on): one camera, the server, multicasts its frame timing over UDP every
/// `periodFrames` frames; each client lengthens or shortens one frame by the difference between its
/// frame and the server's nearest, so the cameras' frames start together. Controls `SyncMode` and
/// `SyncFrames`, metadata `SyncReady` and `SyncTimer` (`ControlName`). docs/fleet.md.

/// `fleet.sync`: the part this camera plays (the `SyncMode` control's values).
public enum FrameSyncMode: String, CaseIterable, Sendable {
    case off, server, client

    /// The `SyncMode` control's value: 0 off, 1 server, 2 client.
    public var controlValue: Int32 {
        switch self {
        case .off: return 0
        case .server: return 1
        case .client: return 2
        }
    }

    public init?(controlValue: Int64) {
        switch controlValue {
        case 0: self = .off
        case 1: self = .server
        case 2: self = .client
        default: return nil
        }
    }
}

/// Where the sync datagrams go: the fork's defaults (its tuning block `rpi.sync`: group
/// 239.255.255.250, port 10000, the default interface), or what a board sets (the simulated board
/// keeps them on the loopback, so nothing leaves the machine).
public struct FrameSyncAddress: Hashable, Sendable, Codable, CustomStringConvertible {
    /// IPv4 multicast group.
    public var group: String
    public var port: UInt16
    /// IPv4 address of the interface to send and join on; nil: the system's choice.
    public var interface: String?

    public init(group: String = "239.255.255.250", port: UInt16 = 10000, interface: String? = nil) {
        self.group = group; self.port = port; self.interface = interface
    }

    /// The fork's defaults.
    public static let raspberryPi = FrameSyncAddress()
    /// The simulated camera's default: the fork's group and port, on the loopback only.
    public static let simulatedDefault = FrameSyncAddress(interface: "127.0.0.1")

    public var description: String { "\(group):\(port)" + (interface.map { " on \($0)" } ?? "") }
}

/// One sync datagram: the fork's `struct SyncPayload` (40 bytes in the host's byte order: a
/// 32-bit frame duration, 4 bytes of padding, four 64-bit times). Times in µs; "wall clock" is
/// CLOCK_REALTIME, "system" the kernel's frame timestamp (CLOCK_MONOTONIC).
public struct FrameSyncPayload: Equatable, Sendable {
    /// The server's estimate of its frame duration (a running mean of its frame intervals), µs.
    public var frameDurationMicroseconds: UInt32
    public var systemFrameMicroseconds: UInt64
    /// FrameWallClock of the server's frame, µs since 1970.
    public var wallClockFrameMicroseconds: UInt64
    public var systemReadyMicroseconds: UInt64
    /// When the cameras count as aligned (SyncReady), µs since 1970.
    public var wallClockReadyMicroseconds: UInt64

    public static let byteCount = 40

    public init(frameDurationMicroseconds: UInt32, systemFrameMicroseconds: UInt64, wallClockFrameMicroseconds: UInt64,
                systemReadyMicroseconds: UInt64, wallClockReadyMicroseconds: UInt64) {
        self.frameDurationMicroseconds = frameDurationMicroseconds
        self.systemFrameMicroseconds = systemFrameMicroseconds
        self.wallClockFrameMicroseconds = wallClockFrameMicroseconds
        self.systemReadyMicroseconds = systemReadyMicroseconds
        self.wallClockReadyMicroseconds = wallClockReadyMicroseconds
    }

    /// Decodes a datagram; nil unless it is exactly `byteCount` bytes.
    public init?(bytes: some Collection<UInt8>) {
        let b = Array(bytes)
        guard b.count == Self.byteCount else { return nil }
        func word(_ at: Int, _ size: Int) -> UInt64 {
            (0..<size).reduce(UInt64(0)) { $0 | UInt64(b[at + $1]) << (8 * UInt64($1)) }
        }
        self.init(frameDurationMicroseconds: UInt32(word(0, 4)), systemFrameMicroseconds: word(8, 8),
                  wallClockFrameMicroseconds: word(16, 8), systemReadyMicroseconds: word(24, 8),
                  wallClockReadyMicroseconds: word(32, 8))
    }

    /// The datagram's bytes (little-endian, as on every Raspberry Pi).
    public var bytes: [UInt8] {
        var out = [UInt8](repeating: 0, count: Self.byteCount)
        func put(_ value: UInt64, _ at: Int, _ size: Int) {
            for i in 0..<size { out[at + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(i))) }
        }
        put(UInt64(frameDurationMicroseconds), 0, 4)
        put(systemFrameMicroseconds, 8, 8)
        put(wallClockFrameMicroseconds, 16, 8)
        put(systemReadyMicroseconds, 24, 8)
        put(wallClockReadyMicroseconds, 32, 8)
        return out
    }
}

/// A way to the other cameras' sync datagrams: `send` on a server, `newest` (every datagram
/// waiting, the newest kept) on a client or a listener. The real one is a UDP multicast socket
/// (`MulticastFrameSyncChannel`, module FrameSyncNetwork); tests use one in memory.
public protocol FrameSyncChannel: AnyObject {
    func send(_ payload: FrameSyncPayload) throws
    /// Reads every datagram waiting without blocking; the newest valid one, or nil when none came.
    func newest() throws -> FrameSyncPayload?
}

/// Where the camera side asks for a sync channel (the board's address decides where it goes).
public protocol FrameSyncChannelFactory: Sendable {
    /// A channel that receives when `receiving` (a client or listener), else one that sends.
    func channel(receiving: Bool) throws -> any FrameSyncChannel
}

/// Where a frame stands relative to the server's frames: the signed offset of `frameMicroseconds`
/// from the nearest frame start of a server whose frame started at `serverFrameMicroseconds` and
/// lasts `frameDurationMicroseconds`, folded into [−duration/2, duration/2). Positive: this frame
/// starts after the server's.
public func frameSyncPhaseMicroseconds(frameMicroseconds: Int64, serverFrameMicroseconds: Int64,
                                       frameDurationMicroseconds: Int64) -> Int64 {
    guard frameDurationMicroseconds > 0 else { return 0 }
    let d = frameDurationMicroseconds
    var r = (frameMicroseconds - serverFrameMicroseconds) % d
    if r < 0 { r += d }
    return r >= (d + 1) / 2 ? r - d : r
}

import Glibc
import Hardware
import Syscalls

/// Frame sync's datagrams over UDP multicast (`FrameSyncChannel`): a sender connected to the
/// group, or a receiver joined to it. Several receivers on one host (a client camera and Tripod's
/// own alignment listener) each get every datagram (SO_REUSEADDR). Non-blocking: `newest` never waits.
public final class MulticastFrameSyncChannel: FrameSyncChannel {
    public let address: FrameSyncAddress
    public let receiving: Bool
    private let syscalls: any DescriptorSyscalls
    private var fd: Int32

    /// Opens the socket (`DescriptorSyscalls.multicastSocket`).
    public init(address: FrameSyncAddress, receiving: Bool, syscalls: any DescriptorSyscalls = SystemSyscalls(GlibcSyscalls())) throws {
        self.address = address; self.receiving = receiving; self.syscalls = syscalls
        do {
            fd = try syscalls.multicastSocket(group: address.group, port: address.port, interface: address.interface, receiving: receiving)
        } catch {
            throw error.hardwareError("frame sync socket \(address)")
        }
    }

    deinit { try? syscalls.close(fd) }

    /// send(2) of one datagram; a full socket buffer (EAGAIN) loses this one, as UDP would.
    public func send(_ payload: FrameSyncPayload) throws {
        let bytes = payload.bytes
        let sent = bytes.withUnsafeBytes { buffer in
            Result { () throws(SyscallError) -> Int in try syscalls.send(fd, buffer, waits: false) }
        }
        switch sent {
        case .success, .failure(SyscallError(errno: EAGAIN)): return
        case .failure(let error): throw error.hardwareError("frame sync send to \(address)")
        }
    }

    /// read(2) until EAGAIN; datagrams of another size are skipped.
    public func newest() throws -> FrameSyncPayload? {
        var newest: FrameSyncPayload?
        var buffer = [UInt8](repeating: 0, count: 256)
        while true {
            let read = buffer.withUnsafeMutableBytes { raw in
                Result { () throws(SyscallError) -> Int in try syscalls.read(fd, raw) }
            }
            switch read {
            case .success(let n):
                if let payload = FrameSyncPayload(bytes: buffer.prefix(n)) { newest = payload }
            case .failure(SyscallError(errno: EAGAIN)):
                return newest
            case .failure(let error):
                throw error.hardwareError("frame sync receive on \(address)")
            }
        }
    }
}

/// Channels to one address through the real calls (`FrameSyncChannelFactory`).
public struct MulticastFrameSyncChannels: FrameSyncChannelFactory {
    public let address: FrameSyncAddress

    public init(address: FrameSyncAddress) { self.address = address }

    public func channel(receiving: Bool) throws -> any FrameSyncChannel {
        try MulticastFrameSyncChannel(address: address, receiving: receiving)
    }
}

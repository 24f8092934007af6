import Boards
import Glibc
import Hardware
import Lifecycle
import Logging
import ManualLoop
import Settings
import Startup
import Supervisor

/// Builds the simulated board's devices (frames rendered at most at `renderSize`), lets `adjust`
/// swap some of them (a storage with faults, a counting display) and starts a supervisor on them,
/// on the manual clock: how tests and benchmarks start the firmware without the real loop.
public func startSimulatedSupervisor(
    on loop: ManualEventLoop, catalog: BoardCatalog = .standard(), board name: String = "sim",
    renderSize: PixelSize? = nil, frameSync: FrameSyncAddress? = nil, capturesDirectory: String, log: Logger = .discard,
    adjust: (inout BoardDevices) -> Void = { _ in }, fleetCommands: @escaping FleetCommandHandler = Supervisor.noFleetClient,
    settingsFollowers: SettingsStore.Followers = SettingsStore.Followers()
) throws(StartupError) -> Supervisor {
    var board = try catalog.board(name)
    if let renderSize { board.camera.maximumRenderSize = renderSize }
    if let frameSync { board.camera.sync = frameSync }
    return try loop.perform { () throws(StartupError) -> Supervisor in
        var devices = try BoardFactory.build(board: board, catalog: catalog, loop: loop,
                                             capturesDirectory: capturesDirectory, log: log)
        adjust(&devices)
        let supervisor = Supervisor(devices: devices, loop: loop, log: log, fleetCommands: fleetCommands, settingsFollowers: settingsFollowers)
        try supervisor.start()
        return supervisor
    }
}

/// A frame-sync group and port on the loopback for one test (board `camera.sync`): unique to this
/// process and call, so tests running side by side never hear each other's datagrams.
public func loopbackFrameSyncAddress() -> FrameSyncAddress {
    let n = frameSyncAddressCounter.withLock { value -> Int in value += 1; return value }
    let port = 20_000 + (Int(getpid()) * 37 + n * 101) % 40_000
    return FrameSyncAddress(group: "239.255.\(Int(getpid()) % 250).\(n % 250 + 1)", port: UInt16(port), interface: "127.0.0.1")
}

private let frameSyncAddressCounter = LockedValue(0)

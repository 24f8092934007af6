import Boards
import Hardware
import ManualLoop
import Startup
import Supervisor
import Syscalls

/// Builds the simulated board's devices (frames rendered at most at `renderSize`), lets `adjust`
/// swap some of them (a storage with faults, a counting display) and starts a supervisor on them,
/// on the manual clock: how tests and benchmarks start the firmware without the real loop.
public func startSimulatedSupervisor(
    on loop: ManualEventLoop, catalog: BoardCatalog = .standard(), board name: String = "sim",
    renderSize: PixelSize? = nil, capturesDirectory: String, log: Logger = .discard,
    adjust: (inout BoardDevices) -> Void = { _ in }
) throws(StartupError) -> Supervisor {
    var board = try catalog.board(name)
    if let renderSize { board.camera.maximumRenderSize = renderSize }
    return try loop.perform { () throws(StartupError) -> Supervisor in
        var devices = try BoardFactory.build(board: board, catalog: catalog, loop: loop,
                                             capturesDirectory: capturesDirectory, log: log)
        adjust(&devices)
        let supervisor = Supervisor(devices: devices, loop: loop, log: log)
        try supervisor.start()
        return supervisor
    }
}

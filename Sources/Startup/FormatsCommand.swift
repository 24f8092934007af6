import Camera
import Foundation
import Boards
import Hardware
import Lifecycle
import LinuxHardware
import SimulatedHardware
import Supervisor

extension TripodMain {
    /// `tripod formats [--board NAME|FILE] [--json]`: opens the board's camera and prints its table,
    /// on the real loop (`PosixEventLoop`) as `tripod run` does, which stops once it is printed.
    static func printFormats(board boardName: String?, json: Bool) -> Int32 {
        let loop = PosixEventLoop()
        let status = LockedValue<Int32>(1)
        loop.execute {
            status.withLock { $0 = printFormats(board: boardName, json: json, loop: loop) }
            loop.stop()
        }
        loop.run()
        return status.current
    }

    private static func printFormats(board boardName: String?, json: Bool, loop: any EventLoop) -> Int32 {
        let catalog = BoardCatalog.standard()
        do throws(StartupError) {
            let board = try catalog.board(boardName ?? "sim")
            let sensors = BoardFactory.loadSensors(catalog: catalog)
            let provider = try BoardFactory.makeCameraProvider(board: board, sensors: sensors, loop: loop, motion: StillMotion())
            guard let first = provider.cameras().first else {
                throw StartupError("no camera found on board \(board.name)")
            }
            let formats: [CameraFormat]
            do {
                let device = try provider.open(id: first.id)
                let sensor = sensors[first.model.lowercased()] ?? SensorDatabase(Array(sensors.values)).describe(device)
                // As the console's `formats`: the sensor's own HDR where the camera manager switches it.
                let switchable = (provider as? SensorHDRSwitch)?.hasSensorHDR(cameraID: first.id) ?? false
                formats = FormatTable.formats(sensor: sensor, controlInfo: device.controlInfo, sensorHDRSwitchable: switchable)
            } catch {
                throw StartupError("camera \(first.model): \(error)")
            }
            if json {
                do { print(try FormatTable.renderJSON(formats)) } catch { throw StartupError("formats: \(error)") }
            } else {
                print("# \(first.model) on board \(board.name)")
                print(FormatTable.renderText(formats))
            }
            return 0
        } catch {
            printError(error.message)
            return 1
        }
    }
}

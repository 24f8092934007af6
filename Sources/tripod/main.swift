import Foundation
import Startup

let status = TripodMain.main(Array(CommandLine.arguments.dropFirst()))
// Leave without running C++ static destructors: the supervisor has already stopped its devices
// and flushed its output, and libcamera's global teardown can block after a camera was used.
fflush(nil)
_exit(status)

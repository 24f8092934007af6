import Foundation
import Supervisor

exit(TripodMain.main(Array(CommandLine.arguments.dropFirst())))

import Collect
import Console
import Fleet
import FleetConsole
import Foundation
import Hardware

extension TripodMain {
    /// Exit statuses of `tripod collect`: 0 every file of every rig that answered is checked;
    /// 3 something is missing (a file, or a rig asked that never answered); 4 a file stayed
    /// corrupt; 1 the collection could not run (broker, key, DIR); 2 the command line.
    public enum CollectStatus {
        public static let complete: Int32 = 0
        public static let failed: Int32 = 1
        public static let missing: Int32 = 3
        public static let corrupt: Int32 = 4
    }

    /// `tripod collect ...`: the broker, the key, then one shot or every shot (`--follow`, until
    /// SIGINT or SIGTERM). Errors become words here.
    static func runCollect(_ options: CollectOptions) -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        // SIGINT and SIGTERM stop --follow: a parent may have started this process with them
        // blocked (posix_spawn passes the mask on), so unblock them before any thread starts.
        var stopping = sigset_t()
        sigemptyset(&stopping)
        sigaddset(&stopping, SIGINT)
        sigaddset(&stopping, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &stopping, nil)
        let began = ContinuousClock.now
        let progress = ProgressReporter.forStandardStreams()
        let directory: FleetDirectory
        let key: String
        do throws(CollectError) {
            key = try Collector.loadKey(options.keyFile)
            var credentials: FleetCredentials?
            if let file = options.credentialsFile {
                do throws(ConsoleError) { credentials = try FleetCredentials.load(path: file) }
                catch { throw CollectError.credential(error.message) }
            }
            directory = try FleetDirectory(broker: options.broker, group: options.group, credentials: credentials, caFile: options.caFile)
        } catch {
            printError("collect: \(error)")
            return CollectStatus.failed
        }
        defer { directory.stop() }
        guard directory.subscribe(within: 10) else {
            printError("collect: the broker \(options.broker) " + (directory.refusal.map { "refused the connection: \($0)" } ?? "did not answer within 10 s" + (options.broker.scheme == .mqtts ? " (over TLS: does --ca hold the CA of its certificate?)" : "")))
            return CollectStatus.failed
        }
        progress.ready(seconds: (ContinuousClock.now - began).secondsValue, rigs: directory.rigs.count, reports: directory.reports.count)
        let collector = Collector(options: options, directory: directory, key: key, progress: progress)
        do throws(CollectError) {
            if options.selection == .follow {
                let stop = StopSignals()
                progress.note("following group \(options.group): each shot as its report comes (SIGINT or SIGTERM stops)")
                var worst = CollectStatus.complete
                try collector.follow(shouldStop: { stop.requested }) { outcome in worst = max(worst, status(of: outcome)) }
                return worst
            }
            return status(of: try collector.collectOne())
        } catch {
            printError("collect: \(error)")
            return CollectStatus.failed
        }
    }

    static func status(of outcome: ShotOutcome) -> Int32 {
        if !outcome.corrupt.isEmpty { return CollectStatus.corrupt }
        if !outcome.missing.isEmpty || !outcome.missingRigs.isEmpty { return CollectStatus.missing }
        return CollectStatus.complete
    }
}

/// SIGINT and SIGTERM asked `--follow` to stop after the shot in hand (a flag set by the handler).
private final class StopSignals: Sendable {
    init() {
        signal(SIGINT) { _ in stopRequested = 1 }
        signal(SIGTERM) { _ in stopRequested = 1 }
    }
    var requested: Bool { stopRequested != 0 }
}

nonisolated(unsafe) private var stopRequested: sig_atomic_t = 0

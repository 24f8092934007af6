import Fleet
import Foundation
import Remote
import Settings

/// `tripod collect`'s options (docs/collect.md).
public struct CollectOptions: Sendable, Equatable {
    public enum Selection: Sendable, Equatable { case shot(String), last, follow }
    public var broker: BrokerAddress
    public var group: String
    /// DIR, absolute.
    public var into: String
    public var selection: Selection = .last
    public var layout: CollectLayout = .rigs
    /// Transfers at once across the fleet.
    public var parallel = 8
    public var keyFile: String
    public var credentialsFile: String?
    /// The broker's CAs (`mqtts://`).
    public var caFile: String?
    /// The rigs' remotes' CAs (HTTPS); nil: the system's.
    public var remoteCA: String?
    public var then: String?
    /// Each transfer's rate cap, kB/s (a rig that records while it is collected); nil: none.
    public var rateLimitKilobytesPerSecond: Int?
    /// How long one shot's collection may take before what is left is named missing.
    public var deadlineSeconds: Double = 120

    public init(broker: BrokerAddress, group: String, into: String, keyFile: String) {
        self.broker = broker; self.group = group; self.into = into; self.keyFile = keyFile
    }
}

/// How one shot's collection ended.
public struct ShotOutcome: Sendable {
    public struct Named: Sendable, Equatable { public let rig: String; public let file: String }
    public let shot: String
    public let checked: Int
    public let missing: [Named]
    public let corrupt: [Named]
    /// Rigs asked that gave no part at all (their files are unknown, or named by the report).
    public let missingRigs: [String]
    public let fetchedFiles: Int
    public let fetchedBytes: Int
    public let seconds: Double
    public let manifest: String
    public var complete: Bool { missing.isEmpty && corrupt.isEmpty && missingRigs.isEmpty }
}

/// The collector: finds the shot(s) through the broker, collects each, writes its manifest, runs
/// `--then`, and keeps the journal for `--follow`.
public final class Collector {
    let options: CollectOptions
    let directory: FleetDirectory
    let key: String
    let progress: ProgressReporter
    private let state: CollectState

    /// `directory` must be subscribed already.
    public init(options: CollectOptions, directory: FleetDirectory, key: String, progress: ProgressReporter) {
        self.options = options
        self.directory = directory
        self.key = key
        self.progress = progress
        self.state = CollectState(root: options.into)
    }

    /// Loads the collection key (`--key`, mode 0600), in words when it cannot be used.
    public static func loadKey(_ path: String) throws(CollectError) -> String {
        do throws(RemoteError) { return try CollectionKey.load(path) } catch { throw CollectError.credential(error.message) }
    }

    /// `--shot ID` or `--last`: collects one shot and returns its outcome. The directory holds
    /// every retained message of the group already (`FleetDirectory.subscribe`), so what is not
    /// there is not on the broker: no waiting.
    public func collectOne() throws(CollectError) -> ShotOutcome {
        switch options.selection {
        case .shot(let id):
            guard SafeName.isValid(id) else { throw CollectError.noShot("\"\(id)\" is not a shot id (letters, digits, - _ .)") }
            // Its report, when the broker still has it; otherwise every rig known is asked for its part.
            return try collect(shot: id, report: directory.report(id))
        case .last, .follow:
            guard let last = directory.reports.last else {
                throw CollectError.noShot("the broker holds no shot report of group \(options.group) (take one with fleet shot)")
            }
            return try collect(shot: last.shot, report: last)
        }
    }

    /// `--follow`: every shot whose report comes, the journal's aside, until `shouldStop`.
    public func follow(shouldStop: () -> Bool, each: (ShotOutcome) -> Void) throws(CollectError) {
        var done = state.doneShots()
        while !shouldStop() {
            directory.takeLinkNotes().forEach(progress.note)
            guard let next = directory.reports.first(where: { !done.contains($0.shot) }) else { usleep(200_000); continue }
            let outcome = try collect(shot: next.shot, report: next)
            each(outcome)
            // Only a shot whose every file is checked goes in the journal: a --follow started
            // again tries an incomplete one once more (this one does not, to go on to the next).
            if outcome.complete { try state.markDone(next.shot) }
            done.insert(next.shot)
        }
    }

    /// Collects `shot`: the report's rigs (or, without one, every rig online), then the
    /// manifest, the summary and `--then`.
    func collect(shot: String, report: ShotReport?) throws(CollectError) -> ShotOutcome {
        try makeFolder(options.into)
        // The report's rigs (each asked for its part, whether or not its reply reached the
        // sender); without one, every rig online with a remote.
        var names = report?.asked ?? directory.rigs.filter { $0.value.remote != nil && $0.value.online }.map(\.key).sorted()
        // In the rigs layout a rig's folder is DIR/<shot>/<rig>: one named like the manifest would
        // be the manifest's path. Such a rig is not collected, and named missing.
        let unplaceable = names.filter { !options.layout.canHold(rig: $0) }
        names.removeAll { unplaceable.contains($0) }
        for rig in unplaceable {
            progress.note("rig \(rig) cannot be collected in the \(options.layout.rawValue) layout: its folder would be the shot's manifest; rename the rig or use --layout colmap")
        }
        let collection = try ShotCollection(shot: shot, report: report, rigNames: names, options: options, directory: directory,
                                            key: key, progress: progress)
        let began = Date()
        collection.run()
        if report == nil && collection.rigs.values.allSatisfy({ $0.hasNoPart || $0.part == nil }) && collection.files.isEmpty {
            throw CollectError.noShot("no report of shot \(shot) on the broker and no rig has a part of it")
        }
        let manifest = Manifest(shot: shot, report: report, collection: collection, layout: options.layout)
        let manifestPath = options.layout.manifestPath(shot: shot)
        try writeAtomically(manifest.encoded(), to: manifestPath, under: options.into)
        let missing = collection.files.filter { $0.state == .missing }.map { ShotOutcome.Named(rig: $0.rig, file: $0.file.path) }
            + collection.silentRigs.flatMap { rig in (report?.rigs[rig]?.files ?? []).map { ShotOutcome.Named(rig: rig, file: $0) } }
        let outcome = ShotOutcome(
            shot: shot, checked: collection.files.filter { $0.state == .checked }.count, missing: missing,
            corrupt: collection.files.filter { $0.state == .corrupt }.map { ShotOutcome.Named(rig: $0.rig, file: $0.file.path) },
            missingRigs: (collection.silentRigs + unplaceable).sorted(), fetchedFiles: collection.fetchedFiles, fetchedBytes: collection.fetchedBytes,
            seconds: Date().timeIntervalSince(began), manifest: manifestPath)
        progress.summary(outcome)
        if outcome.complete, let then = options.then { try runThen(then, folder: options.into + "/" + options.layout.shotFolder(shot: shot)) }
        return outcome
    }

    /// `--then COMMAND`: its words (split on spaces, no shell) and the shot's folder as the last
    /// argument, found on PATH (posix_spawnp through Foundation's Process and /usr/bin/env);
    /// waits for it. Its failure is reported, not fatal.
    func runThen(_ command: String, folder: String) throws(CollectError) {
        let words = command.split(whereSeparator: \.isWhitespace).map(String.init)
        guard !words.isEmpty else { throw CollectError.then("an empty command") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["--"] + words + [folder]
        do { try process.run() } catch { throw CollectError.then("cannot start \(words[0]): \(error.localizedDescription)") }
        process.waitUntilExit()
        if process.terminationStatus != 0 { progress.note("--then \(words[0]) \(folder) ended with status \(process.terminationStatus)") }
    }
}

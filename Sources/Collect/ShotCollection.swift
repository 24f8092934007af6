import CCurl
import Foundation
import Media
import Remote

/// The state of one file of a shot in the collector.
public enum FileState: String, Sendable {
    case queued, checked, missing, corrupt
}

/// One file to collect: where it comes from, where it goes, what it must be.
struct FileJob {
    let rig: String
    let file: RigPart.File
    /// Relative to DIR.
    let destination: String
    let partial: String
    var state: FileState = .queued
    /// Checksum mismatches so far (one more fetch after the first, then `corrupt`).
    var mismatches = 0
    var notBefore = Date.distantPast
    var running: CurlDownload?
}

/// One rig of a shot: its part (asked of its remote), then its files.
struct RigJob {
    let name: String
    /// Listed by the shot's report as asked and not refused or failed (so its absence is
    /// `missing`, not "not in the shot").
    let inReport: Bool
    var part: RigPart?
    /// The rig said it has no part (404): not in this shot, unless the report says it answered.
    var hasNoPart = false
    var partAsk: CurlDownload?
    /// The sidecar's path, as the shot's report names it: its part is made from the sidecar
    /// itself, fetched as one of its files (one request fewer than asking for the part, then the
    /// sidecar); nil: ask `GET /api/shots/<id>` (no report, a lost reply, or that failed).
    var sidecarPath: String?
    var notBefore = Date.distantPast
    var lastError: String?
}

/// Collects one shot: asks every rig for its part, fetches each file (at most `parallel` at once,
/// 2 per rig) into `.tripod-collect/partial`, resumes a cut transfer with `Range`, checks it
/// against the rig's SHA-256, then renames it into the layout. Runs on the calling thread.
final class ShotCollection {
    let shot: String
    let report: ShotReport?
    let options: CollectOptions
    let directory: FleetDirectory
    let key: String
    let progress: ProgressReporter
    private let state: CollectState
    private(set) var rigs: [String: RigJob] = [:]
    private(set) var files: [FileJob] = []
    private let multi: CurlMulti
    private let started = Date()
    /// Bytes fetched over the network, and files fetched (not found checked in DIR already).
    private(set) var fetchedBytes = 0
    private(set) var fetchedFiles = 0

    static let perRig = 2
    static let retryDelay: TimeInterval = 1

    init(shot: String, report: ShotReport?, rigNames: [String], options: CollectOptions, directory: FleetDirectory,
         key: String, progress: ProgressReporter) throws(CollectError) {
        self.shot = shot
        self.report = report
        self.options = options
        self.directory = directory
        self.key = key
        self.progress = progress
        self.state = CollectState(root: options.into)
        self.multi = try CurlMulti(maximumConnections: options.parallel, perHost: Self.perRig)
        // A rig the report says refused or failed its part is asked too, but not waited for.
        let awaited = Set((report?.asked ?? []).filter { !["refused", "failed"].contains(report?.rigs[$0]?.status ?? "") })
        for name in rigNames {
            rigs[name] = RigJob(name: name, inReport: awaited.contains(name), sidecarPath: report?.rigs[name]?.sidecar)
        }
    }

    /// Runs until every file is checked, missing or corrupt, or the deadline.
    func run() {
        let deadline = started.addingTimeInterval(options.deadlineSeconds)
        var lastProgress = Date.distantPast
        while !finished {
            let now = Date()
            if now >= deadline { break }
            startWork(now: now)
            for (download, result) in multi.step(waitingAtMost: 100) { ended(download, result) }
            if Date().timeIntervalSince(lastProgress) >= 0.5 {
                lastProgress = Date()
                progress.progress(snapshot())
            }
        }
        // The deadline: whatever is not checked is missing.
        for index in files.indices where files[index].state == .queued {
            if let running = files[index].running { multi.remove(running); files[index].running = nil }
            files[index].state = .missing
        }
        for name in rigs.keys {
            if let ask = rigs[name]?.partAsk { multi.remove(ask); rigs[name]?.partAsk = nil }
        }
        progress.progress(snapshot())
        // The partial folders of this shot, when nothing is left in them.
        let partials = "\(state.directory)/partial/\(shot)"
        for rig in rigs.keys { rmdir("\(partials)/\(rig)") }
        rmdir(partials)
    }

    /// Every rig answered (or said it has no part) and every file reached its end.
    var finished: Bool {
        rigs.values.allSatisfy { $0.part != nil || ($0.hasNoPart && !$0.inReport) } && files.allSatisfy { $0.state != .queued }
    }

    /// Rigs that were asked (in the report, or had a part) but gave no part by the end.
    var silentRigs: [String] {
        rigs.values.filter { $0.part == nil && ($0.inReport || !$0.hasNoPart) }.map(\.name).sorted()
    }

    func snapshot() -> ProgressSnapshot {
        let answered = rigs.values.filter { $0.part != nil }
        let done = answered.filter { rig in files.allSatisfy { $0.rig != rig.name || $0.state == .checked } }.count
        let checked = files.filter { $0.state == .checked }
        return ProgressSnapshot(shot: shot, rigsDone: done, rigsAsked: rigs.values.filter { $0.inReport || !$0.hasNoPart }.count,
                                filesChecked: checked.count, filesKnown: files.count,
                                bytesChecked: checked.reduce(0) { $0 + $1.file.bytes }, bytesKnown: files.reduce(0) { $0 + $1.file.bytes },
                                fetchedBytes: fetchedBytes, elapsedSeconds: Date().timeIntervalSince(started))
    }

    // MARK: Starting work

    private func running(on rig: String) -> Int {
        files.filter { $0.rig == rig && $0.running != nil }.count + (rigs[rig]?.partAsk != nil ? 1 : 0)
    }

    private func startWork(now: Date) {
        // Parts first: they are small and every file waits for them.
        for name in rigs.keys.sorted() {
            guard let rig = rigs[name], rig.part == nil, !(rig.hasNoPart && !rig.inReport), rig.partAsk == nil, rig.notBefore <= now,
                  multi.count < options.parallel, let remote = directory.remote(of: name) else { continue }
            do throws(CollectError) {
                let path = rig.sidecarPath.map { "/captures/" + $0 } ?? "/api/shots/\(shot)"
                let limit = rig.sidecarPath == nil ? 1 << 20 : CaptureFiles.maximumSidecarBytes
                let ask = try CurlDownload(url: remote + path, authorization: try signature(path, for: name), resumeFrom: 0,
                                           sink: DownloadSink(.memory(limit: limit), remaining: limit), caFile: options.remoteCA)
                try multi.add(ask)
                rigs[name]?.partAsk = ask
            } catch {
                rigs[name]?.lastError = error.description
                rigs[name]?.notBefore = now.addingTimeInterval(Self.retryDelay)
            }
        }
        for index in files.indices {
            guard multi.count < options.parallel else { return }
            let job = files[index]
            guard job.state == .queued, job.running == nil, job.notBefore <= now, running(on: job.rig) < Self.perRig,
                  let remote = directory.remote(of: job.rig) else { continue }
            start(index, remote: remote, now: now)
        }
    }

    private func start(_ index: Int, remote: String, now: Date) {
        let job = files[index]
        let partial = job.partial
        var have = 0
        var info = stat()
        if stat(partial, &info) == 0 { have = Int(info.st_size) }
        if have >= job.file.bytes {
            // Complete already (a transfer that ended as the collector was stopped): check it.
            verify(index)
            return
        }
        do throws(CollectError) {
            try makeFolder((partial as NSString).deletingLastPathComponent)
            let fd = open(partial, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw CollectError.storage("cannot write \(partial): \(String(cString: strerror(errno)))") }
            let download: CurlDownload
            do throws(CollectError) {
                // Hashed as it comes; a resumed file's bytes on disk first.
                var hash = SHA256()
                guard have == 0 || Self.hash(partial, bytes: have, into: &hash) else {
                    throw CollectError.storage("cannot read \(partial) back")
                }
                let path = "/captures/\(job.file.path)"
                download = try CurlDownload(url: remote + path, authorization: try signature(path, for: job.rig), resumeFrom: have,
                                            sink: DownloadSink(.file(fd), remaining: job.file.bytes - have,
                                                               bytesPerSecond: options.rateLimitKilobytesPerSecond.map { $0 * 1000 }, hash: hash),
                                            caFile: options.remoteCA)
                try multi.add(download)
            } catch {
                close(fd)
                throw error
            }
            files[index].running = download
        } catch {
            progress.note("\(job.rig) \(job.file.name): \(error)")
            files[index].notBefore = now.addingTimeInterval(Self.retryDelay)
        }
    }

    /// The `Authorization` value of a GET of `path` from `rig`: a signature for that rig's name
    /// with a new nonce, so the key never travels and a request is good at that rig once
    /// (docs/security.md).
    private func signature(_ path: String, for rig: String) throws(CollectError) -> String {
        do throws(MediaError) {
            return try CollectSignature.sign(key: key, method: "GET", path: path, rig: rig).header
        } catch {
            throw CollectError.credential("cannot sign a request to \(rig): \(error.message)")
        }
    }

    // MARK: Ends

    private func ended(_ download: CurlDownload, _ result: CURLcode) {
        if let name = rigs.values.first(where: { $0.partAsk === download })?.name {
            partEnded(name, download, result)
            return
        }
        guard let index = files.firstIndex(where: { $0.running === download }) else { return }
        files[index].running = nil
        if case .file(let fd) = download.sink.target { close(fd) }
        fetchedBytes += download.sink.written
        if result == CURLE_OK {
            verify(index, digest: download.sink.remaining == 0 ? download.sink.digest() : nil)
            return
        }
        let code = download.responseCode
        if code == 416 || result == CURLE_RANGE_ERROR || download.sink.remaining == 0 && result == CURLE_WRITE_ERROR {
            // The rig's file is not what the partial copy began: start again from its first byte.
            unlink(files[index].partial)
        }
        if code == 404 {
            progress.note("\(files[index].rig) \(files[index].file.name): the rig has no such file")
        }
        files[index].notBefore = Date().addingTimeInterval(Self.retryDelay)
    }

    private func partEnded(_ name: String, _ download: CurlDownload, _ result: CURLcode) {
        rigs[name]?.partAsk = nil
        let code = download.responseCode
        if let path = rigs[name]?.sidecarPath {
            // The sidecar the report named: the part is made from it as the rig makes it, and it is
            // the sidecar's file too. Anything else (not there, not this shot's): ask for the part.
            if result == CURLE_OK, let json = CaptureFiles.shotPart(shot, sidecarPath: path, sidecarBytes: download.sink.buffer),
               let part = RigPart.parse(Array(json.utf8)) {
                rigs[name]?.part = part
                plan(rig: name, part: part, sidecarBytes: download.sink.buffer)
                return
            }
            if result == CURLE_OK || code == 404 {
                rigs[name]?.sidecarPath = nil
                return
            }
        } else if result == CURLE_OK, let part = RigPart.parse(download.sink.buffer) {
            rigs[name]?.part = part
            plan(rig: name, part: part)
            return
        }
        if code == 404 {
            rigs[name]?.hasNoPart = true
            rigs[name]?.lastError = "the rig has no part of this shot"
            if !(rigs[name]?.inReport ?? false) { return }
        } else {
            rigs[name]?.lastError = code >= 400 ? "HTTP \(code)" : CurlLibrary.describe(result)
        }
        rigs[name]?.notBefore = Date().addingTimeInterval(Self.retryDelay)
    }

    /// The rig's part came: its files join the queue (the sidecar too); a file already checked in
    /// DIR (a collector that was stopped) is not fetched again. `sidecarBytes`: the sidecar, when
    /// it was fetched already (as the part's source): written in place at once (`place`).
    private func plan(rig: String, part: RigPart, sidecarBytes: [UInt8]? = nil) {
        var byExtension: [String: [RigPart.File]] = [:]
        for file in part.files { byExtension[SafeName.fileExtension(file.name), default: []].append(file) }
        let entries = [(part.sidecar, true)] + part.files.map { ($0, false) }
        for (file, isSidecar) in entries {
            let siblings = byExtension[SafeName.fileExtension(file.name)] ?? []
            let destination = options.layout.path(shot: shot, rig: rig, name: file.name, index: siblings.firstIndex(of: file) ?? 0,
                                                  count: siblings.count, isSidecar: isSidecar)
            var job = FileJob(rig: rig, file: file, destination: destination,
                              partial: state.partial(shot: shot, rig: rig, name: file.name))
            if Self.matches(options.into + "/" + destination, file) { job.state = .checked }
            files.append(job)
            if isSidecar, job.state == .queued, let sidecarBytes { place(files.count - 1, bytes: sidecarBytes) }
        }
    }

    /// Writes `bytes`, the whole of file `index` fetched already (the sidecar the part was made
    /// from), into its place in DIR at once, as the manifest is written (`writeAtomically`: a
    /// temporary beside it, fsync, rename; never a partial file). It is not checked against the
    /// part's SHA-256: `CaptureFiles.shotPart` took that from these very bytes, so the comparison
    /// could not fail; what checks them is that they parsed as this shot's sidecar. On a write
    /// error it stays queued (fetched again, and then checked as any file is).
    private func place(_ index: Int, bytes: [UInt8]) {
        let job = files[index]
        do throws(CollectError) {
            try writeAtomically(bytes, to: job.destination, under: options.into)
        } catch {
            progress.note("\(error)")
            return
        }
        // A partial copy an earlier run began of it is of no use now.
        unlink(job.partial)
        fetchedBytes += bytes.count
        checked(index)
    }

    /// Checks the complete partial copy against the rig's SHA-256; renames it into place, or
    /// fetches it once more, or marks it corrupt.
    /// `digest`: the SHA-256 taken while the file was written, when it was; otherwise it is read back.
    private func verify(_ index: Int, digest: String? = nil) {
        let job = files[index]
        if digest.map({ $0 == job.file.sha256 }) ?? Self.matches(job.partial, job.file) {
            let destination = options.into + "/" + job.destination
            do throws(CollectError) {
                try makeFolder((destination as NSString).deletingLastPathComponent)
                guard rename(job.partial, destination) == 0 else {
                    throw CollectError.storage("cannot rename into \(destination): \(String(cString: strerror(errno)))")
                }
                checked(index)
            } catch {
                progress.note("\(error)")
                files[index].notBefore = Date().addingTimeInterval(Self.retryDelay)
            }
            return
        }
        unlink(job.partial)
        files[index].mismatches += 1
        if files[index].mismatches >= 2 {
            files[index].state = .corrupt
            progress.file(shot: shot, rig: job.rig, name: job.file.name, state: .corrupt)
        }
    }

    /// File `index` is in its place in DIR, checked.
    private func checked(_ index: Int) {
        files[index].state = .checked
        fetchedFiles += 1
        progress.file(shot: shot, rig: files[index].rig, name: files[index].file.name, state: .checked)
    }

    /// True when the file at `path` has `file`'s size and SHA-256 (read back in 1 MiB blocks).
    static func matches(_ path: String, _ file: RigPart.File) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0, Int(info.st_size) == file.bytes else { return false }
        var hash = SHA256()
        guard Self.hash(path, bytes: file.bytes, into: &hash) else { return false }
        return (try? hash.finalizeHex()) == file.sha256
    }

    /// Adds the first `bytes` bytes of the file at `path` to `hash`, 1 MiB at a time; false when
    /// they cannot be read.
    static func hash(_ path: String, bytes: Int, into hash: inout SHA256) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var block = [UInt8](repeating: 0, count: 1 << 20)
        var left = bytes
        while left > 0 {
            let n = block.withUnsafeMutableBytes { read(fd, $0.baseAddress, min($0.count, left)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            block.withUnsafeBufferPointer { hash.update(UnsafeBufferPointer(rebasing: $0[0..<n])) }
            left -= n
        }
        return true
    }
}

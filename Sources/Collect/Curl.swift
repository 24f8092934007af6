import CCurl
import CCurlShim
import Foundation
import Media

/// Where a download's bytes go: a file descriptor (a capture, never held in memory) or a small
/// buffer (a rig's part of a shot, at most `limit` bytes). Written by libcurl's write callback on
/// the collector's thread, inside curl_multi_perform.
final class DownloadSink {
    enum Target { case file(Int32), memory(limit: Int) }
    let target: Target
    /// Bytes this transfer may still write (a file's expected size minus what is on disk).
    private(set) var remaining: Int
    private(set) var written = 0
    private(set) var buffer: [UInt8] = []
    /// The rate cap, bytes a second; nil: none. Enforced here, so it holds whatever libcurl reads
    /// at once from the socket: a chunk over the budget pauses the transfer.
    let bytesPerSecond: Int?
    private let started = ContinuousClock.now
    /// Paused by this sink (CURL_WRITEFUNC_PAUSE); the owner resumes it once `mayResume`.
    private(set) var paused = false

    /// The SHA-256 of the file so far (its bytes on disk before this transfer, then each chunk
    /// written), so a complete file is checked without reading it again; nil: not hashed.
    private var hash: SHA256?

    init(_ target: Target, remaining: Int, bytesPerSecond: Int? = nil, hash: consuming SHA256? = nil) {
        self.target = target
        self.remaining = remaining
        self.bytesPerSecond = bytesPerSecond
        self.hash = hash
    }

    /// The lower-case hex SHA-256 of everything written (ends the hashing); nil when not hashed.
    func digest() -> String? {
        guard let hash = hash.take() else { return nil }
        return try? hash.finalizeHex()
    }

    /// What the write callback answers.
    enum Answer { case took, pause, stop }

    /// True when a paused transfer's next chunk (up to libcurl's 16 KiB buffer) fits the rate.
    var mayResume: Bool { paused && withinRate(adding: 16 << 10) }

    func resumed() { paused = false }

    private func withinRate(adding count: Int) -> Bool {
        guard let bytesPerSecond else { return true }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Double(written + count) <= Double(bytesPerSecond) * seconds
    }

    /// Takes one chunk, or pauses the transfer (over the rate), or stops it (too many bytes, or
    /// the disk refused them).
    func offer(_ bytes: UnsafeRawBufferPointer) -> Answer {
        guard withinRate(adding: bytes.count) else { paused = true; return .pause }
        return take(bytes) ? .took : .stop
    }

    private func take(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count <= remaining else { return false }
        switch target {
        case .file(let fd):
            var done = 0
            while done < bytes.count {
                let n = write(fd, bytes.baseAddress.map { $0 + done }, bytes.count - done)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return false }
                done += n
            }
        case .memory:
            buffer.append(contentsOf: bytes)
        }
        hash?.update(bytes.assumingMemoryBound(to: UInt8.self))
        remaining -= bytes.count
        written += bytes.count
        return true
    }
}

/// libcurl's write callback (CURLOPT_WRITEFUNCTION): hands each chunk to the `DownloadSink`
/// passed as CURLOPT_WRITEDATA. Returning less than it was given makes libcurl fail the transfer.
private let writeToSink: tripod_curl_write_function = { data, size, count, context in
    guard let data, let context else { return 0 }
    let sink = Unmanaged<DownloadSink>.fromOpaque(context).takeUnretainedValue()
    let total = size * count
    switch sink.offer(UnsafeRawBufferPointer(start: data, count: total)) {
    case .took: return total
    case .pause: return Int(CURL_WRITEFUNC_PAUSE)
    case .stop: return 0
    }
}

/// One HTTP GET through a libcurl easy handle (curl_easy_init, curl_easy_setopt through the
/// typed shim, curl_easy_cleanup in deinit), run by a `CurlMulti`.
final class CurlDownload {
    let handle: UnsafeMutableRawPointer
    let sink: DownloadSink
    private let retainedSink: Unmanaged<DownloadSink>
    private var headers: UnsafeMutablePointer<curl_slist>?

    /// A GET of `url` with `Authorization: <authorization>` (the request's `TripodCollect`
    /// signature: the key itself is never sent), from byte `resumeFrom` on (a `Range` request,
    /// CURLOPT_RESUME_FROM_LARGE), into `sink`. No redirects, HTTP and HTTPS only, an error status
    /// fails the transfer; a stall of 10 s under 1 byte/s fails it too.
    init(url: String, authorization: String, resumeFrom: Int, sink: DownloadSink, caFile: String?) throws(CollectError) {
        _ = CurlLibrary.ready
        guard let made = curl_easy_init() else { throw CollectError.curl(call: "curl_easy_init", message: "out of memory") }
        handle = made
        self.sink = sink
        retainedSink = Unmanaged.passRetained(sink)
        headers = curl_slist_append(nil, "Authorization: " + authorization)
        try set(CURLOPT_URL, string: url)
        try set(CURLOPT_PROTOCOLS_STR, string: "http,https")
        try check("curl_easy_setopt(CURLOPT_HTTPHEADER)", tripod_curl_easy_setopt_pointer(handle, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(headers)))
        try check("curl_easy_setopt(CURLOPT_WRITEFUNCTION)", tripod_curl_easy_setopt_write_function(handle, writeToSink))
        try check("curl_easy_setopt(CURLOPT_WRITEDATA)", tripod_curl_easy_setopt_pointer(handle, CURLOPT_WRITEDATA, retainedSink.toOpaque()))
        try set(CURLOPT_NOSIGNAL, 1)
        try set(CURLOPT_FAILONERROR, 1)
        try set(CURLOPT_CONNECTTIMEOUT_MS, 5000)
        try set(CURLOPT_LOW_SPEED_LIMIT, 1)
        try set(CURLOPT_LOW_SPEED_TIME, 10)
        try set(CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1)
        if resumeFrom > 0 {
            try check("curl_easy_setopt(CURLOPT_RESUME_FROM_LARGE)", tripod_curl_easy_setopt_offset(handle, CURLOPT_RESUME_FROM_LARGE, curl_off_t(resumeFrom)))
        }
        if let caFile { try set(CURLOPT_CAINFO, string: caFile) }
    }

    deinit {
        curl_easy_cleanup(handle)
        curl_slist_free_all(headers)
        retainedSink.release()
    }

    /// Resumes a transfer its sink paused, once the rate allows (curl_easy_pause CURLPAUSE_CONT).
    func resumeIfDue() {
        guard sink.mayResume else { return }
        sink.resumed()
        _ = curl_easy_pause(handle, CURLPAUSE_CONT)
    }

    /// The HTTP status of the last response (curl_easy_getinfo CURLINFO_RESPONSE_CODE); 0 when none.
    var responseCode: Int {
        var code = 0
        _ = tripod_curl_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &code)
        return code
    }

    private func set(_ option: CURLoption, _ value: Int) throws(CollectError) {
        try check("curl_easy_setopt(\(option.rawValue))", tripod_curl_easy_setopt_long(handle, option, value))
    }

    private func set(_ option: CURLoption, string: String) throws(CollectError) {
        try check("curl_easy_setopt(\(option.rawValue))", tripod_curl_easy_setopt_string(handle, option, string))
    }

    private func check(_ call: String, _ code: CURLcode) throws(CollectError) {
        guard code == CURLE_OK else { throw CollectError.curl(call: call, message: CurlLibrary.describe(code)) }
    }
}

/// Many downloads at once over kept-alive connections: a libcurl multi handle (curl_multi_init,
/// curl_multi_cleanup in deinit), with at most `maximumConnections` open, `perHost` to one rig.
final class CurlMulti {
    private let handle: UnsafeMutableRawPointer
    private var running: [UnsafeMutableRawPointer: CurlDownload] = [:]

    init(maximumConnections: Int, perHost: Int) throws(CollectError) {
        _ = CurlLibrary.ready
        guard let made = curl_multi_init() else { throw CollectError.curl(call: "curl_multi_init", message: "out of memory") }
        handle = made
        _ = tripod_curl_multi_setopt_long(handle, CURLMOPT_MAX_TOTAL_CONNECTIONS, maximumConnections)
        _ = tripod_curl_multi_setopt_long(handle, CURLMOPT_MAX_HOST_CONNECTIONS, perHost)
        _ = tripod_curl_multi_setopt_long(handle, CURLMOPT_MAXCONNECTS, maximumConnections)
    }

    deinit {
        for easy in running.keys { curl_multi_remove_handle(handle, easy) }
        running.removeAll()
        curl_multi_cleanup(handle)
    }

    var count: Int { running.count }

    /// Starts `download` (curl_multi_add_handle).
    func add(_ download: CurlDownload) throws(CollectError) {
        let code = curl_multi_add_handle(handle, download.handle)
        guard code == CURLM_OK else { throw CollectError.curl(call: "curl_multi_add_handle", message: String(cString: curl_multi_strerror(code))) }
        running[download.handle] = download
    }

    /// Stops `download` before its end (curl_multi_remove_handle).
    func remove(_ download: CurlDownload) {
        guard running.removeValue(forKey: download.handle) != nil else { return }
        curl_multi_remove_handle(handle, download.handle)
    }

    /// Moves every transfer on (curl_multi_perform), waits for activity up to `milliseconds`
    /// (curl_multi_poll), and returns the transfers that ended with libcurl's result
    /// (curl_multi_info_read), taken off the multi handle.
    func step(waitingAtMost milliseconds: Int32) -> [(CurlDownload, CURLcode)] {
        for download in running.values { download.resumeIfDue() }
        var active: Int32 = 0
        _ = curl_multi_perform(handle, &active)
        if active > 0 { _ = curl_multi_poll(handle, nil, 0, milliseconds, nil) }
        _ = curl_multi_perform(handle, &active)
        var ended: [(CurlDownload, CURLcode)] = []
        var left: Int32 = 0
        while let message = curl_multi_info_read(handle, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                  let download = running.removeValue(forKey: easy) else { continue }
            let result = message.pointee.data.result
            curl_multi_remove_handle(handle, easy)
            ended.append((download, result))
        }
        return ended
    }
}

/// libcurl's process-wide state.
enum CurlLibrary {
    /// curl_global_init(CURL_GLOBAL_ALL: SSL and Win32 sockets, = 3), once per process.
    static let ready: CURLcode = curl_global_init(3)

    /// curl_easy_strerror.
    static func describe(_ code: CURLcode) -> String { String(cString: curl_easy_strerror(code)) }
}

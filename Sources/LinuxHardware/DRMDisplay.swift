import CDRM
import Glibc
import Hardware
import Syscalls

/// A monitor on a DRM/KMS device (`/dev/dri/cardN`), driven with dumb buffers and page flips.
///
/// - Mode: the first connected connector's preferred mode, or the one the board names.
/// - Tear-free: two buffers; `present` draws into the one not being scanned out, then
///   `drmModePageFlip` with `DRM_MODE_PAGE_FLIP_EVENT` swaps them at vblank; the next `present`
///   waits for that event (`drmHandleEvent`) before touching the old front buffer.
/// - DRM master only between `startShowing()` (`drmSetMaster`) and `stopShowing()`
///   (previous CRTC restored, `drmDropMaster`).
/// - Hot-plug: `checkConnection()` re-probes (`drmModeGetConnector`); call it on a
///   `DRMHotplugMonitor` event or from a loop timer. No restart is needed either way.
///
/// Confined to one thread (the display thread); not `Sendable`.
public final class DRMDisplay: DisplayDevice {
    /// The state of a connected, chosen output.
    private struct Output {
        var connector: DRMConnectorInfo
        var mode: DRMMode
        var modeInfo: drmModeModeInfo
        var crtcID: UInt32
        var format: DRMScanoutFormat
        var planeFormats: [UInt32]
    }

    public let devicePath: String
    public let requestedMode: String?
    /// How long `present`/`stopShowing` wait for a pending flip, milliseconds.
    public var flipTimeoutMilliseconds: Int32 = 500
    private let card: DRMCard
    private var output: Output?
    private var showing = false
    private var buffers: [DRMDumbBuffer] = []
    private var front = 0
    private var savedCrtc: UnsafeMutablePointer<drmModeCrtc>?
    /// 1 while a flip is queued; the page-flip handler clears it through the user-data pointer.
    private let flipPending = UnsafeMutablePointer<Int32>.allocate(capacity: 1)

    /// Opens `devicePath` and probes its connectors. Throws `.notFound` for a missing node,
    /// `.unsupported` for a node without KMS. A device with nothing connected is not an error:
    /// `size` is nil until `checkConnection()` sees a monitor.
    public convenience init(devicePath: String, mode: String? = nil) throws(HardwareError) {
        try self.init(devicePath: devicePath, mode: mode, syscalls: SystemSyscalls())
    }

    /// The same with the device node opened through `syscalls` (tests inject faults there).
    init(devicePath: String, mode: String? = nil, syscalls: any SystemCalls) throws(HardwareError) {
        self.devicePath = devicePath
        self.requestedMode = mode
        card = try DRMCard(path: devicePath, syscalls: syscalls)
        flipPending.initialize(to: 0)
        // The first opener becomes master implicitly; give it back until we show.
        _ = drmDropMaster(card.fd)
        output = try probe()
    }

    deinit {
        stopShowing()
        flipPending.deallocate()
    }

    public var name: String {
        guard let output else { return "\(devicePath) (nothing connected)" }
        return "\(devicePath) \(output.connector.name) \(output.mode.width)x\(output.mode.height)"
    }

    public var size: PixelSize? { output?.mode.size }
    /// The chosen scan-out format, nil while nothing is connected.
    public var scanoutFormat: DRMScanoutFormat? { output?.format }
    /// Every format the primary plane offers, as fourcc names ("XR24", "RG16", …).
    public var planeFormatNames: [String] { output?.planeFormats.map(DRMScanoutFormat.name(of:)) ?? [] }
    public var isShowing: Bool { showing }

    private func probe() throws(HardwareError) -> Output? {
        let connectors = try card.connectors()
        let choice: (connector: DRMConnectorInfo, mode: DRMMode)
        do throws(HardwareError) {
            choice = try DRMChoice.connectorAndMode(connectors.map(\.info), requested: requestedMode, device: devicePath)
        } catch where error.kind == .notFound {
            return nil
        }
        guard let entry = connectors.first(where: { $0.info.id == choice.connector.id }),
              let index = entry.info.modes.firstIndex(of: choice.mode) else { return nil }
        let crtc = try card.crtc(for: choice.connector.id)
        let planeFormats = card.primaryPlaneFormats(crtcIndex: crtc.index)
        // No plane list (very old kernel): the legacy primary always takes XR24.
        let format = planeFormats.isEmpty ? .xrgb8888
            : try DRMChoice.scanoutFormat(offered: planeFormats, device: devicePath)
        return Output(connector: choice.connector, mode: choice.mode, modeInfo: entry.modes[index],
                      crtcID: crtc.id, format: format, planeFormats: planeFormats)
    }

    public func startShowing() throws {
        guard !showing else { return }
        let result = drmSetMaster(card.fd)
        if result != 0 {
            let e = result == -1 ? errno : -result
            throw HardwareError(e == EACCES || e == EPERM ? .permission : .busy,
                                "\(devicePath): drmSetMaster: another DRM master holds the device "
                                    + "(a compositor, a console, or another tripod): \(SyscallError(errno: e))",
                                errno: e)
        }
        showing = true
        do throws(HardwareError) {
            try setUpScanout()
        } catch {
            stopShowing()
            throw error
        }
    }

    public func stopShowing() {
        guard showing else { return }
        try? waitForFlip()
        if let saved = savedCrtc {
            var connectorID = output?.connector.id ?? 0
            var mode = saved.pointee.mode
            if saved.pointee.mode_valid != 0, connectorID != 0 {
                _ = drmModeSetCrtc(card.fd, saved.pointee.crtc_id, saved.pointee.buffer_id, saved.pointee.x,
                                   saved.pointee.y, &connectorID, 1, &mode)
            }
        }
        tearDownScanout()
        if let saved = savedCrtc { drmModeFreeCrtc(saved); savedCrtc = nil }
        _ = drmDropMaster(card.fd)
        showing = false
    }

    /// Two dumb buffers in the chosen format, and a mode set showing the first (black).
    private func setUpScanout() throws(HardwareError) {
        guard let output, buffers.isEmpty else { return }
        if savedCrtc == nil { savedCrtc = drmModeGetCrtc(card.fd, output.crtcID) }
        buffers = [try DRMDumbBuffer(card: card, size: output.mode.size, format: output.format),
                   try DRMDumbBuffer(card: card, size: output.mode.size, format: output.format)]
        front = 0
        var connectorID = output.connector.id
        var mode = output.modeInfo
        try card.check(drmModeSetCrtc(card.fd, output.crtcID, buffers[0].framebufferID, 0, 0, &connectorID, 1, &mode),
                       "drmModeSetCrtc \(output.connector.name) \(output.mode)")
    }

    private func tearDownScanout() {
        flipPending.pointee = 0
        buffers.forEach { $0.release() }
        buffers = []
    }

    public func present(xrgb8888 pixels: [UInt32], size: PixelSize) throws {
        guard showing else {
            throw HardwareError(.invalidArgument, "\(devicePath): present before startShowing (not DRM master)")
        }
        guard let output, buffers.count == 2 else { return }  // disconnected: dropped, like the null display
        guard size == output.mode.size, pixels.count == size.area else {
            throw HardwareError(.invalidArgument, "\(devicePath): present \(size) image on a \(output.mode.size) mode")
        }
        try waitForFlip()
        let back = buffers[1 - front]
        back.write(pixels)
        flipPending.pointee = 1
        let result = drmModePageFlip(card.fd, output.crtcID, back.framebufferID, UInt32(DRM_MODE_PAGE_FLIP_EVENT),
                                     UnsafeMutableRawPointer(flipPending))
        if result != 0 {
            flipPending.pointee = 0
            try card.check(result, "drmModePageFlip \(output.connector.name)")
        }
        front = 1 - front
    }

    /// poll(2) of the card's descriptor `fd` (the node `devicePath`) through the seam, which retries
    /// EINTR: true when an event is there to read, false when `timeoutMilliseconds` ran out.
    static func waitForEvent(on fd: Int32, of devicePath: String, timeoutMilliseconds: Int32,
                             syscalls: any SystemCalls) throws(HardwareError) -> Bool {
        do { return try syscalls.poll(fd, events: Int16(POLLIN), timeoutMilliseconds: timeoutMilliseconds) != 0 }
        catch { throw DRMCard.error(error.errno, "\(devicePath): poll for page-flip event") }
    }

    /// Blocks (poll) until the queued flip's event arrives and `drmHandleEvent` clears the flag.
    private func waitForFlip() throws(HardwareError) {
        // drmEventContext, version 2: only the page-flip handler, which clears the pending flag.
        var context = drmEventContext(version: 2, vblank_handler: nil,
                                      page_flip_handler: { _, _, _, _, userData in userData?.assumingMemoryBound(to: Int32.self).pointee = 0 },
                                      page_flip_handler2: nil, sequence_handler: nil)
        while flipPending.pointee != 0 {
            guard try Self.waitForEvent(on: card.fd, of: devicePath, timeoutMilliseconds: flipTimeoutMilliseconds,
                                        syscalls: card.syscalls) else {
                flipPending.pointee = 0
                throw HardwareError(.timeout, "\(devicePath): page-flip event did not arrive within \(flipTimeoutMilliseconds) ms")
            }
            try card.check(drmHandleEvent(card.fd, &context), "drmHandleEvent")
        }
    }

    public func checkConnection() throws -> DisplayConnectionChange {
        let new = try probe()
        let change = DRMChoice.change(from: output.map { ($0.connector.id, $0.mode, $0.format) },
                                      to: new.map { ($0.connector.id, $0.mode, $0.format) })
        guard change != .unchanged else { return .unchanged }
        if showing { try? waitForFlip(); tearDownScanout() }
        output = new
        if showing, new != nil { try setUpScanout() }
        return change
    }
}

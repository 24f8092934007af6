import Foundation
import Glibc
import Hardware
import Syscalls
import Testing
import TestSupport
@testable import LinuxHardware

@Suite struct DRMDisplayTests {
    private func section(_ json: String) throws -> BoardDescription.DisplaySection {
        try JSONDecoder().decode(BoardDescription.DisplaySection.self, from: Data(json.utf8))
    }

    @Test func missingDeviceThrowsNotFoundNamingIt() {
        let error = drmOpenError("/dev/dri/card97")
        #expect(error?.kind == .notFound, "opened a device that does not exist")
        #expect(error?.message.contains("/dev/dri/card97: open") == true)
    }

    @Test func nonKMSNodeIsRejectedClearly() {
        let error = drmOpenError("/dev/null")
        #expect(error?.kind == .unsupported, "/dev/null taken for a KMS device")
        #expect(error?.message.contains("/dev/null: drmModeGetResources") == true)
    }

    @Test func factoryFallsBackToNullDisplayWithAReason() throws {
        let none = DisplayFactory.make(try section(#"{"backend": "none"}"#))
        #expect(none.display is NullDisplay)
        #expect(none.reason?.contains("no display") == true)

        let missing = DisplayFactory.make(try section(#"{"backend": "drm", "device": "/dev/dri/card97"}"#))
        #expect(missing.display is NullDisplay)
        #expect(missing.reason?.contains("/dev/dri/card97") == true)

        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("tripod-dri-\(getpid())")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        let scan = DisplayFactory.make(try section(#"{"backend": "drm"}"#), driDirectory: empty.path)
        #expect(scan.display is NullDisplay)
        #expect(scan.reason == "\(empty.path): no DRM device (no card* node)")
        #expect(scan.display.size == nil)
    }

    @Test func cardNodesAreFoundInNumericOrder() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tripod-dri-nodes-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        for name in ["card10", "card2", "renderD128", "by-path", "cardX"] {
            #expect(FileManager.default.createFile(atPath: dir.appendingPathComponent(name).path, contents: nil))
        }
        #expect(DisplayFactory.cardNodes(in: dir.path) == ["\(dir.path)/card2", "\(dir.path)/card10"])
    }

    @Test func ueventSocketBindsOrFailsNamingTheCall() {
        #expect(MemoryLayout<NetlinkAddress>.size == 12)
        do {
            let monitor = try DRMHotplugMonitor()
            #expect(monitor.fd >= 0)
            #expect(monitor.hotplugOccurred() == false)  // no DRM device here, so no DRM uevents
        } catch {
            #expect(error.message.hasPrefix("uevent netlink: "))
        }
    }

    @Test func uEventParsingRecognisesDRMHotplugOnly() {
        func message(_ fields: [String]) -> [UInt8] { fields.flatMap { Array($0.utf8) + [0] } }
        #expect(DRMHotplugMonitor.isDRMHotplug(message(["change@/devices/platform/vkms/drm/card0", "ACTION=change",
                                                        "DEVPATH=/devices/platform/vkms/drm/card0", "SUBSYSTEM=drm",
                                                        "HOTPLUG=1", "SEQNUM=1234"])))
        #expect(!DRMHotplugMonitor.isDRMHotplug(message(["add@/devices/usb1", "ACTION=add", "SUBSYSTEM=usb"])))
        #expect(!DRMHotplugMonitor.isDRMHotplug(message(["change@/x/drm/card0", "SUBSYSTEM=drm", "LEASE=1"])))
    }
}

/// The descriptor seam with the uevent socket replaced by one end of a Unix datagram socket pair
/// (the test sends uevents into the other end, as the kernel would); bind only counts and takes
/// its injected faults. Records the descriptors closed.
private final class UeventSocketPair: FaultInjectingSyscalls, @unchecked Sendable {
    private(set) var monitorEnd: Int32 = -1, kernelEnd: Int32 = -1
    private(set) var closed: [Int32] = []

    override func netlinkSocket(protocol: Int32) throws(SyscallError) -> Int32 {
        try step(.socket)
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
            throw SyscallError(errno: errno)
        }
        (monitorEnd, kernelEnd) = (fds[0], fds[1])
        return monitorEnd
    }

    override func bind(_ fd: Int32, netlinkGroups groups: UInt32) throws(SyscallError) { try step(.bind) }

    override func close(_ fd: Int32) throws(SyscallError) {
        closed.append(fd)
        try super.close(fd)
    }

    /// Sends one uevent datagram to the monitor.
    func sendUevent(_ fields: [String]) {
        let message: [UInt8] = fields.flatMap { field -> [UInt8] in Array(field.utf8) + [0] }
        #expect(message.withUnsafeBytes { Glibc.send(kernelEnd, $0.baseAddress, $0.count, 0) } == message.count)
    }

    deinit { if kernelEnd >= 0 { Glibc.close(kernelEnd) } }
}

/// The uevent netlink socket on the descriptor seam: the errors of its socket and bind, and how a
/// failed receive ends a drain.
@Suite struct DRMHotplugSeamTests {
    static let hotplug = ["change@/devices/platform/vkms/drm/card0", "ACTION=change", "SUBSYSTEM=drm", "HOTPLUG=1"]

    @Test(arguments: [EACCES, EPERM])
    func aSocketRefusedAsInAContainerIsAPermissionErrorNamingTheCall(errno: Int32) {
        let syscalls = FaultInjectingSyscalls.failing(.socket, errno)
        #expect {
            _ = try DRMHotplugMonitor(syscalls: RetryingSyscalls(syscalls))
        } throws: { error in
            guard let error = error as? HardwareError else { return false }
            return error.kind == .permission && error.errno == errno
                && error.message == "uevent netlink: socket: \(SyscallError(errno: errno).description) (errno \(errno))"
        }
        #expect(syscalls.count(.bind) == 0, "nothing is bound without a socket")
    }

    @Test func aRefusedBindIsReportedAndTheSocketClosed() throws {
        let syscalls = UeventSocketPair()
        syscalls.fail(.bind, errno: EADDRINUSE)
        let error = #expect(throws: HardwareError.self) { _ = try DRMHotplugMonitor(syscalls: RetryingSyscalls(syscalls)) }
        #expect(error?.message.hasPrefix("uevent netlink: bind: ") == true, "\(String(describing: error))")
        #expect(error?.errno == EADDRINUSE)
        #expect(syscalls.closed == [syscalls.monitorEnd], "the socket is closed, once")
    }

    @Test func aDrainEndsAtEAGAINLeavingTheRestForTheNextPollAndAnInterruptedReceiveIsRetried() throws {
        let syscalls = UeventSocketPair()
        let monitor = try DRMHotplugMonitor(syscalls: RetryingSyscalls(syscalls))
        #expect(monitor.fd == syscalls.monitorEnd)
        #expect(!monitor.hotplugOccurred(), "nothing pending: the first receive is EAGAIN")
        syscalls.sendUevent(Self.hotplug)
        syscalls.fail(.read, errno: EINTR)
        let before = syscalls.count(.read)
        #expect(monitor.hotplugOccurred(), "the seam retries an interrupted receive")
        #expect(syscalls.count(.read) == before + 3, "EINTR, the uevent, then EAGAIN")
        syscalls.sendUevent(Self.hotplug)
        syscalls.fail(.read, errno: EAGAIN)
        #expect(!monitor.hotplugOccurred(), "so does an EAGAIN")
        syscalls.sendUevent(["add@/devices/usb1", "ACTION=add", "SUBSYSTEM=usb"])
        #expect(monitor.hotplugOccurred(), "the next poll finds the waiting hot-plug among the uevents")
        #expect(!monitor.hotplugOccurred(), "drained")
    }

    @Test func theMonitorClosesItsSocketOnce() throws {
        let syscalls = UeventSocketPair()
        var monitor: DRMHotplugMonitor? = try DRMHotplugMonitor(syscalls: RetryingSyscalls(syscalls))
        #expect(monitor != nil && syscalls.closed.isEmpty)
        monitor = nil
        #expect(syscalls.closed == [syscalls.monitorEnd])
    }
}

@Suite struct DRMChoiceTests {
    static let modes = [
        DRMMode(name: "1920x1080", width: 1920, height: 1080, refreshHertz: 60, isPreferred: false),
        DRMMode(name: "1920x1080", width: 1920, height: 1080, refreshHertz: 50, isPreferred: false),
        DRMMode(name: "1024x768", width: 1024, height: 768, refreshHertz: 60, isPreferred: true),
        DRMMode(name: "800x480", width: 800, height: 480, refreshHertz: 60, isPreferred: false),
    ]
    static let connectors = [
        DRMConnectorInfo(id: 31, name: "HDMI-A-1", isConnected: false, modes: []),
        DRMConnectorInfo(id: 35, name: "Virtual-1", isConnected: true, modes: modes),
    ]

    @Test func preferredModeOfFirstConnectedConnector() throws {
        let choice = try DRMChoice.connectorAndMode(Self.connectors, requested: nil, device: "/dev/dri/card0")
        #expect(choice.connector.name == "Virtual-1")
        #expect(choice.mode.size == PixelSize(width: 1024, height: 768))
    }

    @Test func boardNamedModeWinsWithOptionalRefresh() throws {
        let any = try DRMChoice.connectorAndMode(Self.connectors, requested: "1920x1080", device: "c")
        #expect(any.mode.refreshHertz == 60)
        let fifty = try DRMChoice.connectorAndMode(Self.connectors, requested: "1920x1080@50", device: "c")
        #expect(fifty.mode.refreshHertz == 50)
        #expect(throws: HardwareError.self) { try DRMChoice.connectorAndMode(Self.connectors, requested: "640x480", device: "c") }
        do {
            _ = try DRMChoice.connectorAndMode(Self.connectors, requested: "640x480", device: "/dev/dri/card0")
        } catch {
            #expect(error.kind == .invalidArgument)
            #expect(error.message.contains("/dev/dri/card0 Virtual-1: no mode \"640x480\""))
        }
    }

    @Test func nothingConnectedIsNotFoundAndListsConnectors() {
        do {
            _ = try DRMChoice.connectorAndMode([Self.connectors[0]], requested: nil, device: "/dev/dri/card1")
            Issue.record("chose a disconnected connector")
        } catch {
            #expect(error.kind == .notFound)
            #expect(error.message == "/dev/dri/card1: no connected connector (HDMI-A-1 disconnected)")
        }
    }

    @Test func reprobeOutcomesCoverAppearVanishAndModeChange() {
        let big = Self.modes[0], small = Self.modes[3]
        #expect(DRMChoice.change(from: nil, to: nil) == .unchanged)
        #expect(DRMChoice.change(from: nil, to: (35, big, .xrgb8888)) == .connected(big.size))
        #expect(DRMChoice.change(from: (35, big, .xrgb8888), to: nil) == .disconnected)
        #expect(DRMChoice.change(from: (35, big, .xrgb8888), to: (35, big, .xrgb8888)) == .unchanged)
        #expect(DRMChoice.change(from: (35, big, .xrgb8888), to: (35, small, .xrgb8888)) == .modeChanged(small.size))
        #expect(DRMChoice.change(from: (35, big, .xrgb8888), to: (36, big, .xrgb8888)) == .modeChanged(big.size))
    }

    @Test func formatPreferenceAmongWhatThePlaneOffers() throws {
        let f = DRMScanoutFormat.fourcc
        #expect(f("XR24") == 0x3432_5258)
        #expect(DRMScanoutFormat.name(of: 0x3432_5258) == "XR24")
        #expect(try DRMChoice.scanoutFormat(offered: [f("RG16"), f("XR48"), f("XR24")], device: "c") == .xrgb8888)
        #expect(try DRMChoice.scanoutFormat(offered: [f("RG16"), f("XR48")], device: "c") == .xrgb16161616)
        #expect(try DRMChoice.scanoutFormat(offered: [f("NV12"), f("RG16")], device: "c") == .rgb565)
        do {
            _ = try DRMChoice.scanoutFormat(offered: [f("NV12")], device: "/dev/dri/card0")
        } catch {
            #expect(error.kind == .unsupported)
            #expect(error.message.hasSuffix("(offers NV12)"))
        }
    }
}

@Suite struct DRMPixelPackingTests {
    private func pack(_ pixels: [UInt32], width: Int, format: DRMScanoutFormat, pitch: Int) -> [UInt8] {
        let rows = pixels.count / width
        var out = [UInt8](repeating: 0xEE, count: pitch * rows)
        out.withUnsafeMutableBytes { dst in
            pixels.withUnsafeBufferPointer {
                DRMPixelPacking.pack($0, size: .init(width: width, height: rows), format: format,
                                     into: dst.baseAddress!, pitch: pitch)
            }
        }
        return out
    }

    @Test func xrgb8888CopiesRowsAndLeavesPitchPadding() {
        let bytes = pack([0x112233, 0x445566], width: 1, format: .xrgb8888, pitch: 6)
        #expect(bytes == [0x33, 0x22, 0x11, 0x00, 0xEE, 0xEE, 0x66, 0x55, 0x44, 0x00, 0xEE, 0xEE])
    }

    @Test func rgb565TruncatesToFiveSixFive() {
        // 0xFF8040: R 31, G 32, B 8 → 0xFC08, little-endian.
        #expect(pack([0xFF8040, 0xFFFFFF], width: 2, format: .rgb565, pitch: 4) == [0x08, 0xFC, 0xFF, 0xFF])
    }

    @Test func xrgb16161616WidensEachChannel() {
        #expect(pack([0x102030], width: 1, format: .xrgb16161616, pitch: 8)
            == [0x30, 0x30, 0x20, 0x20, 0x10, 0x10, 0xFF, 0xFF])
    }
}

/// The error opening `path` as a DRM display (through `syscalls`), or nil when it opened.
private func drmOpenError(_ path: String, _ syscalls: FaultInjectingSyscalls = FaultInjectingSyscalls()) -> HardwareError? {
    do { _ = try DRMDisplay(devicePath: path, syscalls: RetryingSyscalls(syscalls)) } catch { return error }
    return nil
}

/// Faults at the DRM node's open (the descriptor seam): a clear error naming the device and the
/// call, and an interrupted open retried.
@Suite struct DRMSeamTests {
    @Test func aDeniedOpenIsAPermissionErrorNamingTheNode() {
        let error = drmOpenError("/dev/dri/card0", .failing(.open, EACCES))
        #expect(error?.kind == .permission)
        #expect(error?.message.contains("/dev/dri/card0: open: Permission denied") == true, "\(String(describing: error))")
    }

    @Test func anInterruptedOpenIsRetried() {
        let faults = FaultInjectingSyscalls.failing(.open, EINTR)
        let error = drmOpenError("/dev/null", faults)
        #expect(error?.kind == .unsupported, "the retried open reached drmModeGetResources: \(String(describing: error))")
        #expect(faults.count(.open) == 2)
    }
}

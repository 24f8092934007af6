import Foundation
import Hardware
import Testing
@testable import LinuxHardware

/// The DRM path on a real device: runs where `/dev/dri/card0` exists (vkms in the virtual board),
/// skipped elsewhere.
@Suite(.enabled(if: FileManager.default.fileExists(atPath: "/dev/dri/card0"), "needs a DRM device (vkms)"))
struct DRMDeviceTests {
    private func open() throws -> DRMDisplay {
        let section = try JSONDecoder().decode(BoardDescription.DisplaySection.self,
                                               from: Data(#"{"backend": "drm", "device": "/dev/dri/card0"}"#.utf8))
        let made = DisplayFactory.make(section)
        return try #require(made.display as? DRMDisplay, "fell back to the null display: \(made.reason ?? "")")
    }

    @Test func showsFramesWithPageFlipsAndGivesTheDeviceBack() throws {
        let display = try open()
        let size = try #require(display.size, "nothing connected on \(display.devicePath)")
        #expect(display.planeFormatNames.contains("XR24"))
        try display.startShowing()
        #expect(display.isShowing && display.scanoutFormat == .xrgb8888)
        for shade in [0x000000, 0x404040, 0x808080, 0xFFFFFF] as [UInt32] {
            try display.present(xrgb8888: [UInt32](repeating: shade, count: size.area), size: size)
        }
        #expect(try display.checkConnection() == .unchanged)
        #expect(throws: HardwareError.self) {
            try display.present(xrgb8888: [0], size: .init(width: 1, height: 1))
        }
        display.stopShowing()
        #expect(!display.isShowing)
        #expect(throws: HardwareError.self) {
            try display.present(xrgb8888: [UInt32](repeating: 0, count: size.area), size: size)
        }
    }

    @Test func aSecondMasterIsRefusedNamingTheDevice() throws {
        let first = try open(), second = try open()
        try first.startShowing()
        defer { first.stopShowing() }
        do {
            try second.startShowing()
            second.stopShowing()
            Issue.record("two DRM masters at once")
        } catch let error as HardwareError {
            #expect([.busy, .permission].contains(error.kind))
            #expect(error.message.contains("/dev/dri/card0: drmSetMaster: another DRM master"))
        }
    }
}

import Foundation
import Hardware
@testable import LinuxHardware
import Testing

/// Keeps libcamera quiet in tests (tools/test also exports LIBCAMERA_LOG_LEVELS=*:ERROR).
func quietLibcameraLogs() {
    setenv("LIBCAMERA_LOG_LEVELS", "*:ERROR", 0)
}

/// libcamera allows one CameraManager per process, so these run one at a time.
@Suite(.serialized) struct LibcameraProviderTests {
    init() { quietLibcameraLogs() }

    @Test func startsAndStopsRepeatedly() throws {
        let provider = LibcameraProvider()
        #expect(!provider.isStarted)
        #expect(provider.cameras().isEmpty)
        for _ in 0..<3 {
            try provider.start()
            #expect(provider.isStarted)
            let cameras = provider.cameras()
            if cameras.isEmpty {
                #expect(provider.summary().hasSuffix("no camera found"))
            } else {
                for camera in cameras { #expect(provider.summary().contains(camera.id)) }
            }
            provider.stop()
            #expect(!provider.isStarted)
            #expect(provider.cameras().isEmpty)
            #expect(provider.summary().hasSuffix("not started"))
        }
    }

    @Test func openingAnUnknownIdNamesItAndWhatExists() throws {
        let provider = LibcameraProvider()
        try provider.start()
        defer { provider.stop() }
        let error = #expect(throws: HardwareError.self) { _ = try provider.open(id: "/base/no-such-sensor@10") }
        #expect(error?.kind == .notFound)
        #expect(error?.message.contains("'/base/no-such-sensor@10'") == true)
        if provider.cameras().isEmpty {
            #expect(error?.message.contains("no camera found") == true)
        }
    }

    @Test func openingBeforeStartSaysSo() {
        let provider = LibcameraProvider()
        let error = #expect(throws: HardwareError.self) { _ = try provider.open(id: "any") }
        #expect(error?.message.contains("not started") == true)
    }

    @Test func aSecondRunningProviderIsBusyUntilTheFirstStops() throws {
        let first = LibcameraProvider()
        let second = LibcameraProvider()
        try first.start()
        let error = #expect(throws: HardwareError.self) { try second.start() }
        #expect(error?.kind == .busy)
        #expect(!second.isStarted)
        first.stop()
        try second.start()
        #expect(second.isStarted)
        second.stop()
    }

    /// Whatever libcamera it is, the running library's version is "v" + the headers' major.minor.patch
    /// (plus a "+rpt…" or "-<commit>" suffix from a git build), and the summary names it.
    @Test func reportsTheLibcameraItRunsWith() {
        let header = LibcameraProvider.libcameraHeaderVersion.split(separator: ".")
        #expect(header.count == 3 && header.allSatisfy { Int($0) != nil }, "header version \(LibcameraProvider.libcameraHeaderVersion)")
        #expect(LibcameraProvider.runsCompiledLibcamera,
                "runs \(LibcameraProvider.libcameraVersion), compiled against \(LibcameraProvider.libcameraHeaderVersion)")
        #expect(LibcameraProvider().summary() == "libcamera \(LibcameraProvider.libcameraVersion): not started")
    }
}

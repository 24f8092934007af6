import Console
import Foundation
import Hardware
import Media
import SimulatedHardware
import TestSupport
import Testing
@testable import Supervisor

// The virtual board's camera (vimc) has no exposure controls and reports no exposure. On such a
// camera a shutter press still saves the frame, with its settings recorded as unknown; what needs
// exposure control is refused with `err unsupported`, naming why.

@Test func aPressOnACameraWithoutExposureMetadataSavesTheFrameWithItsSettingsUnknown() throws {
    let rig = try CaptureRig(exposureControl: false)
    let edge = rig.button.press()
    let lines = rig.settle(until: { $0.event("bracket.done") != nil || $0.event("bracket.failed") != nil })
    let done = try #require(lines.event("bracket.done"), "\(lines)")
    #expect(done.contains("frames=1"))
    let frameEvent = try #require(lines.event("bracket.frame"), "\(lines)")
    #expect(frameEvent.contains("exposure=unreported") && frameEvent.contains("iso=unreported"), "\(frameEvent)")
    let sidecar = try #require(try rig.sidecars().first)
    #expect(sidecar.result.status == .complete)
    let frame = try #require(sidecar.frames.first)
    #expect(frame.actual == nil && !frame.clampedSettings && frame.mismatches.isEmpty)
    #expect(frame.files.map(\.kind) == [.dng, .jpeg])
    for file in frame.files { #expect(rig.storage.files["\(sidecar.folder)/\(file.name)"]?.count == file.bytes) }
    let start = try #require(sidecar.startMonotonicNanoseconds)
    #expect(start >= edge.nanoseconds && start < edge.nanoseconds + 50_000_000)
    #expect(frame.sensorTimestampNanoseconds > start, "the saved frame was exposed after the press")
}

@Test func whatNeedsExposureControlIsRefusedAsUnsupportedOnSuchACamera() throws {
    let rig = try CaptureRig(exposureControl: false)
    let status = rig.send("status").joined(separator: "\n")
    #expect(status.contains("exposure=unreported") && status.contains("iso=unreported"), "\(status)")
    let bracket = rig.send("bracket ev 3 1").last ?? ""
    #expect(bracket.hasPrefix("err unsupported ") && bracket.contains("only `capture`"), "\(bracket)")
    #expect(rig.send("set exposure.mode locked").last?.hasPrefix("err unsupported ") == true)
    #expect(rig.send("set exposure.bias 1").last?.hasPrefix("err unsupported ") == true)
    #expect(rig.imageFiles.isEmpty)
    // A plain capture from the console works.
    #expect(rig.send("capture").contains { $0.hasPrefix("ok ") })
    let lines = rig.settle(until: { $0.event("bracket.done") != nil || $0.event("bracket.failed") != nil })
    #expect(lines.event("bracket.done") != nil, "\(lines)")
}

/// vimc as the virtual board has it: no exposure metadata and 4 buffers per stream whatever is
/// asked. A press still saves the frame (the regular requests leave it a buffer).
@Test func aPressOnAVimcLikeCameraWithFourBuffersSavesTheFrame() throws {
    let rig = try CaptureRig(exposureControl: false, maximumBufferCount: 4)
    let camera = try #require(rig.supervisor.camera)
    #expect(camera.allocatedBuffers[.stillCapture] == 4)
    #expect(camera.regularRequestLimit == 2)
    rig.button.press()
    let lines = rig.settle(until: { $0.event("bracket.done") != nil || $0.event("bracket.failed") != nil })
    #expect(lines.event("bracket.done") != nil, "\(lines)")
    let sidecar = try #require(try rig.sidecars().first)
    #expect(sidecar.result.status == .complete && sidecar.frames.count == 1)
    #expect(sidecar.frames.first?.actual == nil)
}

/// A half press holds what can be held: on a camera without exposure controls it leaves the
/// exposure alone instead of failing to lock it.
@Test func aHalfPressOnACameraWithoutExposureControlsLocksNothingItCannot() throws {
    for exposureControl in [false, true] {
        let rig = try CaptureRig(exposureControl: exposureControl)
        try rig.button.toggleHalfPress()
        let lines = rig.settle(until: { $0.event("button.half") != nil }, limit: .seconds(1))
        #expect(lines.event("button.half") != nil, "\(lines)")
        let mode = rig.send("get exposure.mode").last ?? ""
        #expect(mode.hasPrefix(exposureControl ? "ok exposure.mode=locked" : "ok exposure.mode=auto"), "\(mode)")
    }
}

/// Changing the format restarts the camera; during a bracket that would cut it off, so it is refused.
@Test func theFormatCannotChangeWhileABracketRuns() throws {
    let rig = try CaptureRig()
    #expect(rig.send("bracket manual 1/2@100 1/2@100").contains { $0.hasPrefix("ok bracket=started") })
    let refused = rig.send("set format 1").last ?? ""
    #expect(refused.hasPrefix("err busy ") && refused.contains("after bracket.done"), "\(refused)")
    let lines = rig.settle(until: { $0.event("bracket.done") != nil || $0.event("bracket.failed") != nil })
    #expect(lines.event("bracket.done") != nil, "\(lines)")
    #expect(rig.send("set format 1").last?.hasPrefix("ok ") == true)
}

/// When the first request has to wait for a free buffer, the shutter lag runs until it is queued.
@Test func shutterLagIncludesAWaitForAFreeBuffer() throws {
    let rig = try CaptureRig(maximumBufferCount: 4) { $0.bracketBuffersPerStream = 0 }
    let camera = try #require(rig.supervisor.camera)
    #expect(camera.bracketBuffersAvailable == 0, "the regular requests hold every buffer")
    rig.button.press()
    let lines = rig.settle(until: { $0.event("bracket.done") != nil || $0.event("bracket.failed") != nil })
    let started = try #require(lines.event("bracket.started"), "\(lines)")
    #expect(started.contains("lag.ms=pending"), "\(started)")
    let done = try #require(lines.event("bracket.done"), "\(lines)")
    let lag = try #require(SimulatedBoardHarness.field("lag.ms", in: done).flatMap(Double.init))
    #expect(lag >= 1, "a frame time or more of waiting: \(done)")
    #expect(rig.supervisor.shutterLags?.count == 1)
}

/// vimc's capture node starts only with two buffers queued: regular streaming must keep two
/// requests in flight even when buffers are short, or no frame ever comes (the virtual board
/// found this).
@Test func aVimcLikeCameraStreamsRegularFramesWithoutAnyCapture() throws {
    let rig = try CaptureRig(exposureControl: false, maximumBufferCount: 4)
    let camera = try #require(rig.supervisor.camera)
    #expect(camera.regularRequestLimit == 2 && camera.bracketBuffersAvailable == 2)
    rig.settle(.milliseconds(200))
    let status = rig.send("status").joined()
    #expect(status.contains("frame="), "regular frames arrive: \(status)")
}

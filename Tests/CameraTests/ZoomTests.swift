import Foundation
import Hardware
import SimulatedHardware
import Testing
@testable import Camera

// Digital zoom through ScalerCrop, with AVFoundation's videoZoomFactor semantics.

private func reportedCrop(_ rig: Rig) -> PixelRect? {
    if case .rectangle(let r)? = rig.controller.latestRequest?.metadata[ControlName.scalerCrop] { return r }
    return nil
}

@Test func zoomTwoCropsTheCentreHalfOfTheFieldAndOneGoesBackToTheWholeField() throws {
    let rig = try Rig.streaming()
    let field = rig.controller.activeFormat.format.sensorCrop
    try rig.controller.setZoom(2)
    rig.loop.advance(by: .milliseconds(300))
    let zoomed = try #require(reportedCrop(rig))
    #expect(abs(zoomed.width * 2 - field.width) <= 2 && abs(zoomed.height * 2 - field.height) <= 2, "\(zoomed) of \(field)")
    #expect(abs((zoomed.x + zoomed.width / 2) - (field.x + field.width / 2)) <= 1, "centred")
    #expect(abs((zoomed.y + zoomed.height / 2) - (field.y + field.height / 2)) <= 1, "centred")
    try rig.controller.setZoom(1)
    rig.loop.advance(by: .milliseconds(300))
    #expect(reportedCrop(rig) == field, "zoom 1 sends the whole field again")
}

@Test func zoomOutsideTheFormatsRangeIsRefusedStatingIt() throws {
    let rig = try Rig.streaming()
    let top = rig.controller.maximumZoomFactor
    #expect(top > 2)
    for factor in [0.5, top + 1] {
        let error = #expect(throws: CameraError.self) { try rig.controller.setZoom(factor) }
        #expect(error?.kind == .outOfRange && error?.message.contains("outside 1...") == true, "\(String(describing: error))")
    }
    #expect(rig.controller.zoomFactor == 1, "a refused zoom changes nothing")
}

@Test func aFormatWhoseMaximumZoomIsBelowTheCurrentZoomIsRefused() throws {
    let rig = try Rig.streaming()
    let formats = rig.controller.formats
    guard let smallest = formats.compactMap({ f in f.maximumZoom.map { (f, $0) } }).min(by: { $0.1 < $1.1 }) else {
        Issue.record("no format reports a maximum zoom"); return
    }
    try rig.controller.setZoom(min(rig.controller.maximumZoomFactor, smallest.1 + 0.5))
    try #require(rig.controller.zoomFactor > smallest.1, "the active format zooms further than format \(smallest.0.index)")
    let error = #expect(throws: CameraError.self) { try rig.controller.selectFormat(String(smallest.0.index)) }
    #expect(error?.message.contains("set zoom 1 first") == true)
}

@Test func zoomingAStabilizationCropKeepsItsShiftWhole() throws {
    let rig = try Rig.streaming()
    try rig.controller.setZoom(4)
    let field = rig.controller.activeFormat.format.sensorCrop
    let shifted = PixelRect(x: field.x + 40, y: field.y + 24, width: field.width - 200, height: field.height - 112)
    let z = rig.controller.zoomed(shifted)
    #expect(z.x + z.width / 2 == shifted.x + shifted.width / 2 && z.y + z.height / 2 == shifted.y + shifted.height / 2)
    #expect(abs(z.width * 4 - shifted.width) <= 4)
}

import Foundation
import Hardware
import Testing
@testable import Media

/// `ExifTag.all` is the one list both writers follow: exiftool finds exactly its tags, in its
/// directories, in a DNG and a JPEG of the same picture.
@Suite struct ExifTagsTests {
    @Test func eachTagIsListedOnce() {
        let keys = ExifTag.all.map { "\($0.directory) \($0.id)" }
        #expect(Set(keys).count == keys.count, "\(keys)")
    }

    @Test(arguments: [ExifTag.Files.dng, .jpeg])
    func exiftoolFindsTheListedTagsAndNoOthersFromTheList(file kind: ExifTag.Files) throws {
        var exif = testExif(size: PixelSize(width: 64, height: 48))
        // The tags that need a serial and the sensor's size (IMX708's 4608 x 2592 pixels of 1.4 µm).
        exif.camera.serialNumber = "SIM0123456789ABCDEF-0"
        exif.camera.sensorWidthMillimetres = 6.4512
        exif.camera.sensorHeightMillimetres = 3.6288
        let bytes = kind == .dng
            ? try DNGWriter.encode(makeRawFrame(), description: DNGDescription(exif: exif, blackLevel: 256))
            : try JPEGWriter.encode(makeRGBFrame(), exif: exif)
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + (kind == .dng ? "/picture.dng" : "/picture.jpg")
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        // -G1 names the directory (IFD0, ExifIFD); -D gives each tag's number.
        let result = try runTool("exiftool", ["-j", "-n", "-a", "-G1", "-D", file])
        let json = try JSONSerialization.jsonObject(with: result.stdout) as? [[String: Any]]
        var found: [String: Any] = [:]
        for (key, entry) in json?.first ?? [:] {
            guard let entry = entry as? [String: Any], let id = entry["id"] as? Int,
                  let group = key.split(separator: ":").first, group == "IFD0" || group == "ExifIFD" else { continue }
            found["\(group) \(id)"] = entry["val"]
        }
        for tag in ExifTag.all {
            let key = (tag.directory == .primary ? "IFD0 " : "ExifIFD ") + "\(tag.id)"
            if tag.files.contains(kind) {
                #expect(found[key] != nil, "\(tag.name) missing from the \(kind == .dng ? "DNG" : "JPEG")")
                if case .ascii(let text) = tag.value(exif) {
                    #expect(found[key] as? String == text, "\(tag.name)")
                }
            } else {
                #expect(found[key] == nil, "\(tag.name) is not listed for this file but was written")
            }
        }
    }
}

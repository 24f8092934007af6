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

    /// The focal plane is the area of the array the picture shows: the whole IMX708 array (4608 x
    /// 2592 pixels of 1.4 µm behind 4.74 mm) is 28 mm in 35 mm terms; its 3072 x 1728 crop (the
    /// 120 fps mode, or a 1.5× zoom) is 42 mm, and 384 pixels across it are 384 / 0.43008 cm.
    @Test func aCroppedPictureHasTheFocalPlaneItShows() throws {
        var exif = testExif(size: PixelSize(width: 384, height: 216))
        exif.camera = CameraIdentity(make: "Raspberry Pi", model: "Camera Module 3 (imx708)", uniqueCameraModel: "Raspberry Pi imx708",
                                     focalLengthMillimetres: 4.74, fNumber: 1.8)
        exif.camera.sensorWidthMillimetres = 6.4512
        exif.camera.sensorHeightMillimetres = 3.6288
        exif.camera.pixelPitchMicrometres = 1.4
        func value(_ name: String) -> Double? {
            switch ExifTag.all.first(where: { $0.name == name })?.value(exif) {
            case .short(let v)?: return Double(v)
            case .rational(let n, let d)?: return Double(n) / Double(d)
            default: return nil
            }
        }
        #expect(value("FocalLengthIn35mmFilm") == 28)
        #expect(abs((value("FocalPlaneXResolution") ?? 0) - 384 / 0.64512) < 0.01)
        exif.imagedArea = PixelRect(x: 768, y: 432, width: 3072, height: 1728)
        #expect(value("FocalLengthIn35mmFilm") == 42)
        #expect(abs((value("FocalPlaneXResolution") ?? 0) - 384 / 0.43008) < 0.01)
        #expect(abs((value("FocalPlaneYResolution") ?? 0) - 216 / 0.24192) < 0.01)
        // Without the pitch the area cannot be measured: the whole array, as before.
        exif.camera.pixelPitchMicrometres = nil
        #expect(value("FocalLengthIn35mmFilm") == 28)
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

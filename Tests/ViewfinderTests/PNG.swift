import CPNG
import Viewfinder

/// PNG files for the reference images, through libpng's simplified API (png_image): writes 8-bit
/// RGB; reads any PNG libpng reads (every colour type and bit depth, palettes, interlacing,
/// ancillary chunks), converted by libpng to 8-bit RGB.
enum PNG {
    struct Error: Swift.Error, CustomStringConvertible { var description: String }

    /// PNG bytes of an XRGB8888 canvas (png_image_write_to_memory: once for the size, once to write).
    static func encode(_ canvas: Canvas) throws -> [UInt8] {
        var rgb = [UInt8](); rgb.reserveCapacity(canvas.pixels.count * 3)
        for p in canvas.pixels {
            rgb += [UInt8(truncatingIfNeeded: p >> 16), UInt8(truncatingIfNeeded: p >> 8), UInt8(truncatingIfNeeded: p)]
        }
        var image = header(width: canvas.width, height: canvas.height)
        var size = 0
        guard png_image_write_to_memory(&image, nil, &size, 0, rgb, 0, nil) != 0, size > 0 else {
            throw Error(description: "png: png_image_write_to_memory (size) failed: \(message(image))")
        }
        var bytes = [UInt8](repeating: 0, count: size)
        image = header(width: canvas.width, height: canvas.height)
        guard png_image_write_to_memory(&image, &bytes, &size, 0, rgb, 0, nil) != 0 else {
            throw Error(description: "png: png_image_write_to_memory failed: \(message(image))")
        }
        return Array(bytes.prefix(size))
    }

    /// The canvas in a PNG file (png_image_begin_read_from_memory, then png_image_finish_read
    /// into 8-bit RGB; alpha, if any, composited on black). Throws with libpng's message.
    static func decode(_ bytes: [UInt8]) throws -> Canvas {
        var image = header(width: 0, height: 0)
        guard png_image_begin_read_from_memory(&image, bytes, bytes.count) != 0 else {
            throw Error(description: "png: png_image_begin_read_from_memory failed: \(message(image))")
        }
        let width = Int(image.width), height = Int(image.height)
        guard width * height <= 1 << 26 else {
            png_image_free(&image)
            throw Error(description: "png: \(width)x\(height) is larger than any reference image")
        }
        image.format = PNG_FORMAT_RGB
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        // On failure png_image_finish_read frees libpng's state itself.
        guard png_image_finish_read(&image, nil, &rgb, 0, nil) != 0 else {
            throw Error(description: "png: png_image_finish_read failed: \(message(image))")
        }
        var canvas = Canvas(size: .init(width: width, height: height))
        for i in canvas.pixels.indices {
            canvas.pixels[i] = Pixel.rgb(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2])
        }
        return canvas
    }

    /// A zeroed png_image of this version, 8-bit RGB.
    private static func header(width: Int, height: Int) -> png_image {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        image.width = UInt32(width)
        image.height = UInt32(height)
        image.format = PNG_FORMAT_RGB
        return image
    }

    /// libpng's error or warning text in `image.message`.
    private static func message(_ image: png_image) -> String {
        withUnsafeBytes(of: image.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}

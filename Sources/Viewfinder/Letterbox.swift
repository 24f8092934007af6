import Hardware

/// How the camera image is resampled to the display.
public enum ScalingFilter: String, Sendable, CaseIterable {
    /// Each display pixel takes the nearest source pixel: cheapest.
    case nearest
    /// Each display pixel blends the four nearest source pixels (8-bit fixed-point weights).
    case bilinear
}

/// Errors from the viewfinder's pure frame path.
public enum ViewfinderError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The frame's pixel format has no converter (e.g. packed CSI-2 raw).
    case unsupportedPixelFormat(PixelFormat)
    /// The frame's bytes are fewer than its size, stride and format need.
    case bufferTooShort(format: PixelFormat, size: PixelSize, needed: Int, have: Int)

    public var description: String {
        switch self {
        case .unsupportedPixelFormat(let f): "viewfinder: not yet: no converter for pixel format \(f)"
        case let .bufferTooShort(f, s, n, h): "viewfinder: \(f) \(s) frame needs \(n) bytes, has \(h)"
        }
    }
}

/// Where an image of one aspect goes on a display of another: centred, as large as fits, bars
/// (letterbox or pillarbox) on the remaining sides.
public enum Letterbox {
    /// The largest rectangle of `source`'s aspect ratio inside `display`, centred; sizes rounded to
    /// the nearest pixel, at least 1×1 when both sizes are non-empty.
    public static func fit(source: PixelSize, in display: PixelSize) -> PixelRect {
        guard source.area > 0, display.area > 0 else { return PixelRect(x: 0, y: 0, width: 0, height: 0) }
        var w = display.width, h = display.height
        if source.width * display.height > display.width * source.height {
            h = max(1, (display.width * source.height * 2 + source.width) / (2 * source.width))
        } else {
            w = max(1, (display.height * source.width * 2 + source.height) / (2 * source.height))
        }
        return PixelRect(x: (display.width - w) / 2, y: (display.height - h) / 2, width: w, height: h)
    }
}

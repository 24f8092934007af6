import Hardware

/// Tripod's built-in 5×7 bitmap font for printable ASCII, drawn at integer scales so text stays
/// sharp on any display. Glyphs are drawn in tools/font5x7.txt; other characters draw as '?'.
public enum BitmapFont {
    /// Glyph size in font pixels.
    public static let glyphWidth = 5, glyphHeight = 7
    /// Advance per character and per line, in font pixels (one column and two rows of spacing).
    public static let advance = 6, lineHeight = 9

    /// The size `text` takes at `scale`, in display pixels (no trailing spacing column).
    public static func size(of text: String, scale: Int) -> (width: Int, height: Int) {
        let n = text.unicodeScalars.count
        return (n == 0 ? 0 : (n * advance - 1) * scale, glyphHeight * scale)
    }

    /// The 35 glyph bits of `scalar` (row 0 in bits 34...30, leftmost column highest).
    static func bits(_ scalar: Unicode.Scalar) -> UInt64 {
        let v = Int(scalar.value)
        return (32...126).contains(v) ? glyphs5x7[v - 32] : glyphs5x7[Int(("?" as Unicode.Scalar).value) - 32]
    }

    /// Draws `text` with its top-left at (x, y), each font pixel a `scale`×`scale` square of `color`;
    /// with `shadow`, a one-font-pixel dark outline to the lower right keeps it legible on any image.
    /// Returns the x just after the text.
    @discardableResult
    public static func draw(_ text: String, x: Int, y: Int, scale: Int, color: UInt32,
                            shadow: UInt32? = 0x000000, into canvas: inout Canvas) -> Int {
        let s = max(1, scale)
        if let shadow {
            drawRun(text, x: x + s, y: y + s, scale: s, color: shadow, into: &canvas)
        }
        return drawRun(text, x: x, y: y, scale: s, color: color, into: &canvas)
    }

    @discardableResult
    private static func drawRun(_ text: String, x: Int, y: Int, scale s: Int, color: UInt32,
                                into canvas: inout Canvas) -> Int {
        var penX = x
        for scalar in text.unicodeScalars {
            let glyph = bits(scalar)
            for row in 0..<glyphHeight {
                let rowBits = (glyph >> UInt64(30 - 5 * row)) & 0x1F
                guard rowBits != 0 else { continue }
                for col in 0..<glyphWidth where rowBits & (0x10 >> UInt64(col)) != 0 {
                    canvas.fill(PixelRect(x: penX + col * s, y: y + row * s, width: s, height: s), color: color)
                }
            }
            penX += advance * s
        }
        return penX - s
    }
}

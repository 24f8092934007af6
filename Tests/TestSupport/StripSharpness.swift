/// Sharpness of each vertical strip of an image (the strips of `sim scene depth`): the variance of
/// the 4-neighbour Laplacian of the green channel, leaving out `margin` columns either side of each
/// strip's borders (where a blurred strip and its neighbour mix). `green(x, y)` reads a pixel.
public func stripSharpness(width w: Int, height h: Int, strips: Int, margin: Int,
                           green: (_ x: Int, _ y: Int) -> Double) -> [Double] {
    (0..<strips).map { k in
        let lo = max(k * w / strips + margin, 1), hi = min((k + 1) * w / strips - margin, w - 1)
        var sum = 0.0, squares = 0.0, count = 0.0
        for y in 1..<max(h - 1, 1) {
            for x in lo..<max(hi, lo) {
                let l = 4 * green(x, y) - green(x - 1, y) - green(x + 1, y) - green(x, y - 1) - green(x, y + 1)
                sum += l; squares += l * l; count += 1
            }
        }
        return count > 0 ? squares / count - (sum / count) * (sum / count) : 0
    }
}

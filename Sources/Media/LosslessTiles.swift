import Dispatch
import Foundation
import Hardware

/// The lossless JPEG tiles of a frame, encoded on every core (DispatchQueue.concurrentPerform, on
/// another thread) from the moment this is made, and handed out in order as each is done: the DNG
/// writer streams tile 0 while later tiles are still being encoded.
///
/// Tiles run left to right, then top to bottom (TIFF 6.0 §15); each is 2 components of
/// tileWidth/2 columns, so the frame's geometry is the tile's and each colour of a Bayer row has
/// its own predictor (as Adobe's DNG Converter writes them). Edge tiles are full-size, padded with
/// the image's last column and row.
final class LosslessTiles: @unchecked Sendable {
    let count: Int
    private let condition = NSCondition()
    // Guarded by `condition`:
    private var tiles: [[UInt8]?]
    private var overWhite: [Int?]  // the largest sample of a tile above the white level
    private var cancelled = false
    private var finished = false
    private let frame: FrameBuffer
    private let bits: Int, white: Int

    init(_ frame: FrameBuffer, layout: BayerLayout, tileWidth: Int, tileLength: Int) {
        let width = frame.size.width, height = frame.size.height
        let across = (width + tileWidth - 1) / tileWidth, down = (height + tileLength - 1) / tileLength
        count = across * down
        tiles = Array(repeating: nil, count: count)
        overWhite = Array(repeating: nil, count: count)
        self.frame = frame
        bits = layout.bitsPerSample; white = layout.whiteLevel
        let bits = bits, white = white, count = count, bytesPerSample = layout.bytesPerSample
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            frame.withUnsafeBytes { pixels in
                let source = UncheckedSendable(pixels)
                DispatchQueue.concurrentPerform(iterations: count) { index in
                    if condition.withLock({ cancelled }) { return }
                    let left = (index % across) * tileWidth, top = (index / across) * tileLength
                    var samples = [UInt16](repeating: 0, count: tileWidth * tileLength)
                    var largest: UInt16 = 0
                    samples.withUnsafeMutableBufferPointer { tile in
                        let pixels = source.value
                        for y in 0..<tileLength {
                            let row = min(top + y, height - 1) * frame.stride
                            for x in 0..<tileWidth {
                                let column = min(left + x, width - 1)
                                let v = bytesPerSample == 2
                                    ? UInt16(littleEndian: pixels.loadUnaligned(fromByteOffset: row + column * 2, as: UInt16.self))
                                    : UInt16(pixels[row + column])
                                largest = max(largest, v)
                                tile[y * tileWidth + x] = v
                            }
                        }
                    }
                    var encoded: [UInt8] = []
                    if Int(largest) <= white {
                        encoded = samples.withUnsafeBufferPointer {
                            LosslessJPEG.encode($0, width: tileWidth, height: tileLength, components: 2, precision: max(bits, 2))
                        }
                    }
                    condition.withLock {
                        if Int(largest) > white { overWhite[index] = Int(largest) } else { tiles[index] = encoded }
                        condition.broadcast()
                    }
                }
            }
            condition.withLock { finished = true; condition.broadcast() }
        }
    }

    /// Tile `index` once encoded (and let go of here: the caller keeps it). Throws
    /// `MediaError(.invalidFrame)` when the tile has a sample above the white level, which lossless
    /// JPEG of that precision cannot hold.
    func take(_ index: Int) throws -> [UInt8] {
        try condition.withLock {
            while tiles[index] == nil && overWhite[index] == nil { condition.wait() }
            if let largest = overWhite[index] {
                throw MediaError(.invalidFrame, "raw frame \(frame.size) \(frame.pixelFormat): sample \(largest) in tile \(index) "
                    + "is above the \(bits)-bit white level \(white); a lossless DNG cannot hold it")
            }
            defer { tiles[index] = [] }
            return tiles[index] ?? []
        }
    }

    /// Stops encoding the tiles not started yet and waits for the ones under way.
    func cancel() {
        condition.withLock {
            cancelled = true
            while !finished { condition.wait() }
        }
    }

    /// Waits for every tile to be encoded.
    func waitUntilFinished() {
        condition.withLock { while !finished { condition.wait() } }
    }
}

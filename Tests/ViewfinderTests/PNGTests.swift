import Testing
import Viewfinder

@Suite struct PNGTests {
    @Test func crcAndAdlerMatchKnownValues() {
        #expect(PNG.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(Deflate.adler32(Array("Wikipedia".utf8)) == 0x11E6_0398)
    }

    @Test func deflateRoundTripsRunsAndNoise() throws {
        var seed: UInt32 = 12345
        var data = [UInt8](repeating: 7, count: 1000)
        for _ in 0..<5000 { seed = seed &* 1_664_525 &+ 1_013_904_223; data.append(UInt8(seed >> 24)) }
        data += Array("abcabcabcabcabc the end".utf8)
        let z = Deflate.zlibCompress(data)
        #expect(try Deflate.zlibDecompress(z) == data)
        #expect(z.count < data.count + 64)
    }

    @Test func pngRoundTripsACanvas() throws {
        var canvas = Canvas(size: .init(width: 37, height: 11))
        for i in canvas.pixels.indices { canvas.pixels[i] = UInt32(i &* 2_654_435_761 & 0xFFFFFF) }
        canvas.fill(.init(x: 3, y: 2, width: 20, height: 5), color: 0x123456)
        #expect(try PNG.decode(PNG.encode(canvas)) == canvas)
    }

    @Test func corruptedPNGIsRejected() {
        var bytes = PNG.encode(Canvas(size: .init(width: 4, height: 4), fill: 0xFFFFFF))
        bytes[40] ^= 0xFF
        #expect(throws: PNG.Error.self) { try PNG.decode(bytes) }
    }
}

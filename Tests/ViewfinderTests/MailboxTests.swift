import Dispatch
import Hardware
import Testing
@testable import Viewfinder

/// A display that records what it was given.
final class RecordingDisplay: DisplayDevice {
    var name: String { "recording" }
    var size: PixelSize?
    var presented: [(pixels: [UInt32], size: PixelSize)] = []
    init(size: PixelSize?) { self.size = size }
    func present(xrgb8888 pixels: [UInt32], size: PixelSize) throws { presented.append((pixels, size)) }
}

@Suite struct MailboxTests {
    @Test func latestValueWinsAndReplacedOnesAreCounted() {
        let box = LatestValueMailbox<Int>()
        #expect(box.take() == nil)
        box.post(1); box.post(2); box.post(3)
        #expect(box.take() == 3)
        #expect(box.take() == nil)
        box.post(4)
        #expect(box.take() == 4)
        let counts = box.counts
        #expect(counts.posted == 4 && counts.taken == 2 && counts.replaced == 2)
    }

    @Test func concurrentPostsAndTakesLoseNothingUnaccounted() {
        let box = LatestValueMailbox<Int>()
        let taken = LockedValue([Int]())
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for i in 0..<2000 {
                if worker == 0 {
                    if let v = box.take() { taken.withLock { $0.append(v) } }
                } else {
                    box.post(worker * 10_000 + i)
                }
            }
        }
        let leftover = box.take()
        let counts = box.counts
        #expect(counts.posted == 6000)
        #expect(counts.taken == UInt64(taken.current.count) + (leftover == nil ? 0 : 1))
        #expect(counts.taken + counts.replaced == counts.posted)
        // Each producer's values are seen in order: a taken value is never older than one taken before.
        for worker in 1...3 {
            let mine = taken.current.filter { $0 / 10_000 == worker }
            #expect(mine == mine.sorted())
        }
    }

    private func solid(_ value: UInt8) -> FrameBuffer {
        FrameBuffer(pixelFormat: .bgr888, size: .init(width: 4, height: 3), stride: 12,
                    bytes: [UInt8](repeating: value, count: 36))
    }

    @Test func presenterShowsOnlyTheNewestFrameOnce() throws {
        let display = RecordingDisplay(size: .init(width: 8, height: 6))
        var options = OverlayOptions()
        options.status = false; options.histogram = false
        let presenter = ViewfinderPresenter(display: display, options: options, filter: .nearest)
        presenter.post(frame: solid(10), status: ViewfinderStatus())
        presenter.post(frame: solid(200), status: ViewfinderStatus())
        #expect(try presenter.presentLatest())
        #expect(try presenter.presentLatest() == false)
        #expect(display.presented.count == 1)
        #expect(display.presented.first?.pixels == [UInt32](repeating: 0xC8C8C8, count: 48))
        #expect(presenter.mailbox.counts.replaced == 1)
    }

    @Test func presenterFollowsDisplaySizeAndDropsWhenDisconnected() throws {
        let display = RecordingDisplay(size: nil)
        let presenter = ViewfinderPresenter(display: display)
        presenter.post(frame: solid(50), status: ViewfinderStatus())
        #expect(try presenter.presentLatest() == false)
        display.size = .init(width: 320, height: 240)
        presenter.post(frame: solid(50), status: ViewfinderStatus())
        #expect(try presenter.presentLatest())
        display.size = .init(width: 800, height: 480)
        presenter.post(frame: solid(50), status: ViewfinderStatus())
        #expect(try presenter.presentLatest())
        #expect(display.presented.map(\.size) == [.init(width: 320, height: 240), .init(width: 800, height: 480)])
        #expect(display.presented.map(\.pixels.count) == [320 * 240, 800 * 480])
    }

    @Test func nullDisplayAcceptsNothingAndNothingBreaks() throws {
        let presenter = ViewfinderPresenter(display: NullDisplay())
        presenter.post(frame: solid(1), status: ViewfinderStatus())
        #expect(try presenter.presentLatest() == false)
    }
}

import Testing

/// How `FrameCapture` files its calls, with no server: its state handed the frame times a late call reads.
@Suite("FrameCapture files each call at its cycle's frames")
struct FrameCaptureTests {
    /// A state for one port of `room` frames and room for 16 MIDI messages (no client: `place` and `filed` never
    /// touch it), and what a call writes: `count` frames of `value` at `at`, and a MIDI message at `at + offset`.
    final class Fixture {
        let state = UnsafeMutablePointer<FrameCapture.State>.allocate(capacity: 1)

        init(room: Int) {
            let samples = UnsafeMutablePointer<Float>.allocate(capacity: room)
            samples.initialize(repeating: 0, count: room)
            let heard = UnsafeMutablePointer<Bool>.allocate(capacity: room)
            heard.initialize(repeating: false, count: room)
            state.initialize(
                to: FrameCapture.State(
                    client: OpaquePointer(bitPattern: 1)!, ports: .allocate(capacity: 1), portCount: 1, room: room,
                    samples: samples, heard: heard, midiPorts: .allocate(capacity: 1), midiPortCount: 0, midiRoom: 16,
                    midiPort: .allocate(capacity: 16), midiFrame: .allocate(capacity: 16),
                    midiBytes: .allocate(capacity: 48), midiSize: .allocate(capacity: 16)))
        }

        /// One call as the process callback makes it: placed, written, filed. Returns where it went (nil: left out).
        @discardableResult
        func call(start: Int64, count: Int, value: Float, midiAt offset: Int? = nil) -> Int? {
            let state = state
            let repeats = { (at: Int) in
                (0..<count).allSatisfy { state.pointee.samples[at + $0] == value }
                    && (state.pointee.lastMidiStart..<state.pointee.midiCount).map { state.pointee.midiFrame[$0] }
                        == (offset.map { [at + $0] } ?? [])
            }
            guard let at = FrameCapture.place(state, start: start, count: count, repeats: repeats) else { return nil }
            (state.pointee.samples + at).update(repeating: value, count: count)
            if let offset {
                let slot = state.pointee.midiCount
                state.pointee.midiFrame[slot] = at + offset
                state.pointee.midiCount = slot + 1
            }
            FrameCapture.filed(state, at: at, count: count)
            // Every call here ends in its own cycle (a test sets the flag after a call to say otherwise).
            state.pointee.lastEndedLate = false
            return at
        }

        /// A fixture after two calls: 64 frames of 1 at 1000, then of 2 at 1064 with a message at offset 5.
        static func afterTwoCalls() -> Fixture {
            let fixture = Fixture(room: 1024)
            fixture.call(start: 1000, count: 64, value: 1)
            fixture.call(start: 1064, count: 64, value: 2, midiAt: 5)
            return fixture
        }

        func samples(_ range: Range<Int>) -> [Float] { range.map { state.pointee.samples[$0] } }
        func heard(_ range: Range<Int>) -> [Bool] { range.map { state.pointee.heard[$0] } }
        var midiFrames: [Int] { (0..<state.pointee.midiCount).map { state.pointee.midiFrame[$0] } }

        deinit { FrameCapture.free(state) }
    }

    @Test(
        "Calls on consecutive frame times are filed one after the other; a skipped cycle is a hole, and the call after it stands only with a pair: at the next cycle's call its period is a hole too"
    )
    func consecutiveAndMissed() {
        let fixture = Fixture(room: 1024)
        #expect(fixture.call(start: 1000, count: 64, value: 1) == 0)
        #expect(fixture.call(start: 1064, count: 64, value: 2) == 64)
        #expect(fixture.call(start: 1192, count: 64, value: 4, midiAt: 3) == 192)
        let expected = [Bool](repeating: true, count: 128) + [Bool](repeating: false, count: 64)
        #expect(fixture.heard(0..<256) == expected + [Bool](repeating: true, count: 64))
        #expect(fixture.midiFrames == [195])
        // The cycle after: the call at 1192 could have been the one for 1128, woken late.
        #expect(fixture.call(start: 1256, count: 64, value: 5) == 256)
        let unheardThen = [Bool](repeating: false, count: 64) + [Bool](repeating: true, count: 64)
        #expect(fixture.heard(0..<320) == expected + unheardThen)
        #expect(fixture.samples(192..<256) == Array(repeating: 0, count: 64))
        #expect(fixture.midiFrames == [])
        #expect(fixture.state.pointee.refiled == 0 && fixture.state.pointee.leftOut == 0)
        #expect(fixture.state.pointee.distrusted == 1)
        // Consecutive again: nothing more is made a hole.
        #expect(fixture.call(start: 1320, count: 64, value: 6) == 320)
        #expect(fixture.heard(256..<384) == Array(repeating: true, count: 128))
    }

    @Test(
        "A call after one that ended once the next cycle had begun stands only with a pair: followed by the next cycle's call, its period is a hole"
    )
    func afterACallThatEndedLate() {
        let fixture = Fixture(room: 1024)
        fixture.call(start: 1000, count: 64, value: 1)
        fixture.state.pointee.lastEndedLate = true
        #expect(fixture.call(start: 1064, count: 64, value: 2) == 64)
        #expect(fixture.call(start: 1128, count: 64, value: 3) == 128)
        let (heard, unheard) = ([Bool](repeating: true, count: 64), [Bool](repeating: false, count: 64))
        #expect(fixture.heard(0..<192) == heard + unheard + heard)
        #expect(fixture.samples(64..<128) == Array(repeating: 0, count: 64))
        #expect(fixture.state.pointee.distrusted == 1)
    }

    @Test(
        "A call woken after the next cycle began reads that cycle's frame time: at the next call with the same one, its frames and MIDI go back a period, into the hole"
    )
    func lateCallRefiled() {
        let fixture = Fixture(room: 1024)
        fixture.call(start: 1000, count: 64, value: 1)
        // The call for the cycle at 1064 runs late and reads 1128; a clock in it at offset 10 (due on frame 74).
        #expect(fixture.call(start: 1128, count: 64, value: 2, midiAt: 10) == 128)
        // The cycle at 1128's own call.
        #expect(fixture.call(start: 1128, count: 64, value: 3) == 128)
        #expect(fixture.samples(64..<128) == Array(repeating: 2, count: 64))
        #expect(fixture.samples(128..<192) == Array(repeating: 3, count: 64))
        #expect(fixture.heard(0..<192) == Array(repeating: true, count: 192))
        #expect(fixture.midiFrames == [74])
        #expect(fixture.state.pointee.refiled == 1)
        // The next cycle goes on where it belongs, and the pair stands.
        #expect(fixture.call(start: 1192, count: 64, value: 4) == 192)
        #expect(fixture.call(start: 1256, count: 64, value: 5) == 256)
        #expect(fixture.heard(0..<320) == Array(repeating: true, count: 320))
        #expect(fixture.state.pointee.distrusted == 0)
    }

    @Test(
        "A second call that holds what the first filed is a repeat, left out; the period before stays a hole if it was one"
    )
    func repeatedCallLeftOut() {
        let fixture = Fixture.afterTwoCalls()
        #expect(fixture.call(start: 1064, count: 64, value: 2, midiAt: 5) == nil)
        #expect(fixture.samples(64..<128) == Array(repeating: 2, count: 64))
        #expect(fixture.midiFrames == [69])
        #expect(fixture.state.pointee.leftOut == 1 && fixture.state.pointee.refiled == 0)
        // A late call that read the next cycle's frame time after that cycle's frames were written: the same frames
        // twice, so the cycle it served is unknown and stays a hole (moved back, a click would be heard twice).
        #expect(fixture.call(start: 1192, count: 64, value: 4) == 192)
        #expect(fixture.call(start: 1192, count: 64, value: 4) == nil)
        #expect(fixture.heard(128..<192) == Array(repeating: false, count: 64))
        #expect(fixture.samples(128..<256) == Array(repeating: 0, count: 64) + Array(repeating: 4, count: 64))
        #expect(fixture.state.pointee.leftOut == 2 && fixture.state.pointee.refiled == 0)
    }

    @Test(
        "Two calls with one frame time that differ, the period before heard: either could be the cycle's, so the period is a hole, its messages dropped"
    )
    func differingPairMadeAHole() {
        let fixture = Fixture.afterTwoCalls()
        #expect(fixture.call(start: 1064, count: 64, value: 9, midiAt: 7) == nil)
        #expect(fixture.samples(64..<128) == Array(repeating: 0, count: 64))
        #expect(fixture.heard(0..<128) == Array(repeating: true, count: 64) + Array(repeating: false, count: 64))
        #expect(fixture.midiFrames == [])
        #expect(fixture.state.pointee.distrusted == 1 && fixture.state.pointee.leftOut == 0)
        // The next cycle is filed where it belongs.
        #expect(fixture.call(start: 1128, count: 64, value: 3) == 128)
        #expect(fixture.heard(128..<192) == Array(repeating: true, count: 64))
    }
}

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
            guard let at = FrameCapture.place(state, start: start, count: count) else { return nil }
            (state.pointee.samples + at).update(repeating: value, count: count)
            if let offset {
                let slot = state.pointee.midiCount
                state.pointee.midiFrame[slot] = at + offset
                state.pointee.midiCount = slot + 1
            }
            FrameCapture.filed(state, at: at, count: count)
            return at
        }

        func samples(_ range: Range<Int>) -> [Float] { range.map { state.pointee.samples[$0] } }
        func heard(_ range: Range<Int>) -> [Bool] { range.map { state.pointee.heard[$0] } }
        var midiFrames: [Int] { (0..<state.pointee.midiCount).map { state.pointee.midiFrame[$0] } }

        deinit { FrameCapture.free(state) }
    }

    @Test("Calls on consecutive frame times are filed one after the other; a skipped cycle is a hole")
    func consecutiveAndMissed() {
        let fixture = Fixture(room: 1024)
        #expect(fixture.call(start: 1000, count: 64, value: 1) == 0)
        #expect(fixture.call(start: 1064, count: 64, value: 2) == 64)
        #expect(fixture.call(start: 1192, count: 64, value: 4) == 192)
        let expected = [Bool](repeating: true, count: 128) + [Bool](repeating: false, count: 64)
        #expect(fixture.heard(0..<256) == expected + [Bool](repeating: true, count: 64))
        #expect(fixture.state.pointee.refiled == 0 && fixture.state.pointee.leftOut == 0)
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
        // The next cycle goes on where it belongs.
        #expect(fixture.call(start: 1192, count: 64, value: 4) == 192)
    }

    @Test(
        "A second call for a cycle whose period before was heard repeats it and is left out: the first call's frames stay"
    )
    func repeatedCallLeftOut() {
        let fixture = Fixture(room: 1024)
        fixture.call(start: 1000, count: 64, value: 1)
        fixture.call(start: 1064, count: 64, value: 2, midiAt: 5)
        #expect(fixture.call(start: 1064, count: 64, value: 9, midiAt: 5) == nil)
        #expect(fixture.samples(64..<128) == Array(repeating: 2, count: 64))
        #expect(fixture.midiFrames == [69])
        #expect(fixture.state.pointee.leftOut == 1 && fixture.state.pointee.refiled == 0)
    }
}

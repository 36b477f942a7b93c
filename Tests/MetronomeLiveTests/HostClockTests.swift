import MetronomeLive
import MetronomeModel
import MetronomeTestSupport
import Testing

@Suite("Host clock: mappings between frames and CLOCK_MONOTONIC")
struct HostClockTests {
    @Test("A virtual clock at 48 kHz places frames at exact nanoseconds, rounded once")
    func virtualClockExactValues() throws {
        let clock = VirtualClock(start: HostTime(nanoseconds: 1_000_000_000), sampleRate: .standard)
        let mapping = try #require(clock.mapping)
        #expect(
            mapping == ClockMapping(frame: 0, hostTime: HostTime(nanoseconds: 1_000_000_000), framesPerSecond: 48000))
        let hosts = [0, 1, 2, 3, 48000, -48000, 1_728_000_000].map { mapping.hostTime(ofFrame: $0).nanoseconds }
        #expect(
            hosts == [1_000_000_000, 1_000_020_833, 1_000_041_667, 1_000_062_500, 2_000_000_000, 0, 36_001_000_000_000])
        let frames = [1_000_010_416, 1_000_010_417, 999_989_584, 999_989_583, 1_500_000_000, 0].map {
            mapping.frame(at: HostTime(nanoseconds: $0))
        }
        #expect(frames == [0, 1, 0, -1, 24000, -48000])
        let cd = try #require(VirtualClock(sampleRate: SampleRate(44100)).mapping)
        #expect(cd.hostTime(ofFrame: 1).nanoseconds == 22676)
        #expect(cd.hostTime(ofFrame: 44100).nanoseconds == 1_000_000_000)
    }

    @Test("frame(at: hostTime(ofFrame: f)) == f for 20000 seeded random mappings and frames within ±2⁴⁰ of the anchor")
    func roundTripIsExact() {
        var random = SeededGenerator(seed: 9)
        var misses = 0
        var worstHostError: Int64 = 0
        for _ in 0..<20000 {
            let nominal = Double(SampleRate.allowed.randomElement(using: &random)!)
            let rate = nominal * (1 + Double.random(in: -1e-3...1e-3, using: &random))
            let mapping = ClockMapping(
                frame: Int64.random(in: -(1 << 40)...(1 << 40), using: &random),
                hostTime: HostTime(nanoseconds: Int64.random(in: 0...(1 << 50), using: &random)),
                framesPerSecond: rate)
            let frame = mapping.frame + Int64.random(in: -(1 << 40)...(1 << 40), using: &random)
            if mapping.frame(at: mapping.hostTime(ofFrame: frame)) != frame { misses += 1 }
            // The other way round is exact to within half a frame.
            let host = HostTime(
                nanoseconds: mapping.hostTime.nanoseconds + Int64.random(in: -(1 << 52)...(1 << 52), using: &random))
            let back = mapping.hostTime(ofFrame: mapping.frame(at: host)).nanoseconds - host.nanoseconds
            worstHostError = max(worstHostError, abs(back) - Int64((5e8 / rate).rounded(.up)))
        }
        #expect(misses == 0)
        #expect(worstHostError <= 0)
    }

    @Test("HostTime.now() reads CLOCK_MONOTONIC: it never goes back and follows a 20 ms sleep")
    func nowIsMonotonic() {
        let first = HostTime.now()
        var previous = first
        for _ in 0..<1000 {
            let next = HostTime.now()
            #expect(next >= previous)
            previous = next
        }
        let before = HostTime.now()
        let wake = ContinuousClock.now.advanced(by: .milliseconds(20))
        while ContinuousClock.now < wake {}
        let elapsed = HostTime.now().nanoseconds - before.nanoseconds
        #expect((20_000_000..<40_000_000).contains(elapsed))
    }

    @Test(
        "A published mapping reads back as stored with its tag, nil included, and neither is torn under a concurrent writer"
    )
    func publishedMapping() {
        let cell = PublishedClockMapping()
        #expect(cell.load() == nil)
        let mapping = ClockMapping(frame: -5, hostTime: HostTime(nanoseconds: 77), framesPerSecond: 44100.5)
        cell.store(mapping)
        #expect(cell.load() == mapping)
        #expect(cell.loadTagged().tag == 0)
        cell.store(mapping, tag: 41)
        #expect(cell.loadTagged().mapping == mapping && cell.loadTagged().tag == 41)
        cell.store(nil)
        #expect(cell.load() == nil)
        #expect(cell.loadTagged().tag == 0)

        // Every stored mapping has hostTime = 7·frame and rate = frame + 1, and its tag 3·frame (the bound PulseAudio
        // publishes with its mapping); a torn read would break that. The writer
        // stores ever larger frames until the reader has made its reads, so the two overlap however the threads
        // are scheduled (the reader first waits for the writer's first store).
        var torn = 0
        var last: Int64 = 0
        whileWriting({ frame in
            cell.store(
                ClockMapping(
                    frame: frame, hostTime: HostTime(nanoseconds: 7 * frame), framesPerSecond: Double(frame + 1)),
                tag: 3 * frame)
        }) {
            while cell.load() == nil {}
            for _ in 0..<500_000 {
                let (mapping, tag) = cell.loadTagged()
                guard let read = mapping else { continue }
                if read.hostTime.nanoseconds != 7 * read.frame || read.framesPerSecond != Double(read.frame + 1)
                    || tag != 3 * read.frame || read.frame < last
                {
                    torn += 1
                }
                last = read.frame
            }
        }
        #expect(last >= 1)
        #expect(torn == 0)
    }
}

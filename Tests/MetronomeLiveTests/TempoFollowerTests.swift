import Foundation
import MetronomeEngine
import MetronomeLive
import MetronomeModel
import MetronomeTestSupport
import Synchronization
import Testing

/// A `TempoSource` with no clock behind it, the seam's test double: it reports the timeline it is given, which a test
/// may replace at any time (as Link's thread replaces its capture).
final class FixedTempoSource: TempoSource {
    private let current: Locked<BeatTimeline?>

    init(_ timeline: BeatTimeline?) { current = Locked(timeline) }

    func set(_ timeline: BeatTimeline?) { current.withLock { $0 = timeline } }

    func timeline(at time: HostTime) -> BeatTimeline? { current.withLock { $0 } }
}

@Suite("A session follows an external tempo source on the render's virtual clock")
struct TempoFollowerTests {
    /// The frame the source says a beat is heard at, on a virtual clock with frame 0 at host time 0, rounded once.
    static func frame(ofSourceBeat beat: Double, on timeline: BeatTimeline, rate: Double = 48_000) -> SampleTime {
        let mapping = ClockMapping(frame: 0, hostTime: HostTime(nanoseconds: 0), framesPerSecond: rate)
        return SampleTime(mapping.exactFrame(at: timeline.hostTime(ofBeat: beat)).rounded())
    }

    static func session(tempo: Double = 120) throws -> Session {
        try Session(
            map: try TempoMap.steady(tempo: .of(tempo)), clicks: Impulses.clickSet(),
            configuration: try MixerConfiguration(channels: 1))
    }

    @Test("From the second beat on every click is on the source's beat, to the frame, at the source's tempo")
    func followsTempoAndPhase() throws {
        // 97 BPM: a beat is 29 690.72… frames, so every frame is a rounding; beat 0.3 heard at host time 0.
        let timeline = BeatTimeline(tempo: .of(97), beat: 0.3, hostTime: HostTime(nanoseconds: 0), quantum: 4)
        let session = try Self.session()
        session.follow(FixedTempoSource(timeline))
        let sink = OnsetSink(channels: 1)
        try session.render(frameCount: 48_000 * 20, to: sink)
        // The first beat was scheduled before the transport ran; beat 1 is where the source hears beat 1 (the nearer
        // bar phase: our downbeats on the source's multiples of 4), and so on.
        #expect(session.followedBeatOffset == 0)
        let expected = [0] + (1..<40).map { Self.frame(ofSourceBeat: Double($0), on: timeline) }
        #expect(sink.onsets.map(\.frame) == Array(expected.prefix(sink.onsets.count)))
        // 20 s at 97 BPM from source beat 0.3: beats 1 … 32, and ours at frame 0.
        #expect(sink.onsets.count == 33)
        #expect(
            sink.onsets.map { Impulses.level(of: $0.value) }.prefix(9) == ["X", "x", "x", "x", "X", "x", "x", "x", "X"])
        #expect(session.map.tempo(at: Position(ticks: 2 * Position.ticksPerQuarter)) == 97)
    }

    @Test(
        "Following steadily, a source 100 µs off for good moves no click (the clocks' noise), nor one 400 µs off for one look; 400 µs kept is followed from the second beat that shows it"
    )
    func smallDeviationsConfirmed() throws {
        let timeline = BeatTimeline(tempo: .of(120), beat: 0, hostTime: HostTime(nanoseconds: 0), quantum: 4)
        let shifted = { (nanoseconds: Int64) -> BeatTimeline in
            BeatTimeline(tempo: .of(120), beat: 0, hostTime: HostTime(nanoseconds: nanoseconds), quantum: 4)
        }
        let onGrid: [SampleTime] = (0..<9).map { (index: Int) -> SampleTime in SampleTime(index) * 24_000 }
        // One look's noise: the source 400 µs (19.2 frames, over `moveBeyond`) off for one block, then back.
        let noisy = FixedTempoSource(timeline)
        let session = try Self.session()
        session.follow(noisy)
        let sink = OnsetSink(channels: 1)
        try session.render(frameCount: 48_000 * 2 + 2_000, to: sink)
        noisy.set(shifted(400_000))
        try session.render(frameCount: 1_024, to: sink)
        noisy.set(timeline)
        try session.render(frameCount: 48_000 * 2, to: sink)
        #expect(sink.onsets.map(\.frame) == onGrid)
        // 100 µs (4.8 frames, over `tolerance`, under `moveBeyond`) for good: as close as the clocks can tell.
        let near = FixedTempoSource(timeline)
        let staying = try Self.session()
        staying.follow(near)
        let stayed = OnsetSink(channels: 1)
        try staying.render(frameCount: 48_000 * 2 + 2_000, to: stayed)
        let movesBefore = try #require(staying.followedMoves).count
        near.set(shifted(100_000))
        try staying.render(frameCount: 48_000 * 2, to: stayed)
        #expect(stayed.onsets.map(\.frame) == onGrid)
        #expect(staying.followedMoves?.count == movesBefore)
        // 400 µs kept: beat 5, the first that shows it (beat 4 was scheduled already), only marks it; beat 6 is moved
        // (19 frames), and the rest follow.
        let kept = FixedTempoSource(timeline)
        let following = try Self.session()
        following.follow(kept)
        let moved = OnsetSink(channels: 1)
        try following.render(frameCount: 48_000 * 2 + 2_000, to: moved)
        kept.set(shifted(400_000))
        try following.render(frameCount: 48_000 * 2, to: moved)
        let afterShift: [SampleTime] = (6..<9).map { SampleTime($0) * 24_000 + 19 }
        #expect(moved.onsets.map(\.frame) == Array(onGrid.prefix(6)) + afterShift)
    }

    @Test(
        "A source's tempo change on a beat, seen with 400 µs of one look's clock noise, moves no click: the beat stays, the next ones follow the new tempo"
    )
    func tempoChangeWithNoiseMovesNothing() throws {
        let slow = BeatTimeline(tempo: .of(120), beat: 0, hostTime: HostTime(nanoseconds: 0), quantum: 4)
        // From beat 5 (2.5 s) the source runs at 140; the first look that sees it sees it 400 µs (19.2 frames) late:
        // over `moveBeyond`, so the confirmation at two beats is what keeps the beat.
        let fast = BeatTimeline(tempo: .of(140), beat: 5, hostTime: HostTime(nanoseconds: 2_500_000_000), quantum: 4)
        let noisy = BeatTimeline(tempo: .of(140), beat: 5, hostTime: HostTime(nanoseconds: 2_500_400_000), quantum: 4)
        let source = FixedTempoSource(slow)
        let session = try Self.session()
        session.follow(source)
        let sink = OnsetSink(channels: 1)
        // Beat 4 (frame 96 000) is scheduled by frame 98 000; beat 5 is the first the noisy look looks at.
        try session.render(frameCount: 98_000, to: sink)
        source.set(noisy)
        try session.render(frameCount: 1_024, to: sink)
        source.set(fast)
        try session.render(frameCount: 48_000 * 2, to: sink)
        let expected =
            (0..<6).map { (index: Int) -> SampleTime in SampleTime(index) * 24_000 }
            + (6..<12).map { Self.frame(ofSourceBeat: Double($0), on: fast) }
        #expect(sink.onsets.map(\.frame) == Array(expected.prefix(sink.onsets.count)))
        #expect(sink.onsets.count == 9)
    }

    @Test("Bar phase: our downbeats land on the source's multiples of the quantum, the nearer way")
    func barPhase() throws {
        // Beat 2.6 at host time 0: our beat 1 (frame 24 000) would hear source beat 3.41, so our bar 0 is the source's
        // beat 4 (offset 4), and our beat 1 comes at the source's beat 5.
        let timeline = BeatTimeline(tempo: .of(120), beat: 2.6, hostTime: HostTime(nanoseconds: 0), quantum: 4)
        let session = try Self.session()
        session.follow(FixedTempoSource(timeline))
        let sink = OnsetSink(channels: 1)
        try session.render(frameCount: 48_000 * 10, to: sink)
        #expect(session.followedBeatOffset == 4)
        // One move, the first beat's onto the source's; on a steady source, none after it.
        #expect(session.followedMoves?.count == 1)
        let expected = [0] + (1..<20).map { Self.frame(ofSourceBeat: Double($0) + 4, on: timeline) }
        #expect(sink.onsets.map(\.frame) == Array(expected.prefix(sink.onsets.count)))
        // Accents on our downbeats, which are the source's beats 8, 12, …
        let accents = sink.onsets.filter { Impulses.level(of: $0.value) == "X" }.map(\.frame)
        #expect(accents.dropFirst().first == Self.frame(ofSourceBeat: 8, on: timeline))
    }

    @Test("Beat subscribers get the source's beat and phase: our beat plus the offset, our downbeats at phase 0")
    func subscribersGetTheSourceBeat() async throws {
        let timeline = BeatTimeline(tempo: .of(120), beat: 2.6, hostTime: HostTime(nanoseconds: 0), quantum: 4)
        let session = try Self.session()
        session.follow(FixedTempoSource(timeline))
        let stream = session.beats()
        try session.render(frameCount: 48_000 * 5, to: OnsetSink(channels: 1))
        session.stop()
        var beats: [BeatEvent] = []
        for await beat in stream { beats.append(beat) }
        #expect(beats.count == 9)
        // 5 s: our beat 0, then the source's beats 5 to 12. Our beat 0 was scheduled before the first alignment: it has
        // none. As in the bar-phase test, our bar 0 is the source's beat 4, so our beat n is its n + 4, and our
        // downbeats are at phase 0.
        #expect(beats.first?.sourceBeat == nil)
        let sourceBeats = (1..<beats.count).map { (beat: Int) -> Double? in Double(beat) + 4 }
        let sourcePhases = (1..<beats.count).map { (beat: Int) -> Double? in Double(beat % 4) }
        #expect(beats.dropFirst().map(\.sourceBeat) == sourceBeats)
        #expect(beats.dropFirst().map(\.sourcePhase) == sourcePhases)
        #expect(beats.dropFirst().filter { $0.beat == 1 }.map(\.sourcePhase) == [0, 0])
    }

    @Test("A tempo change at the source moves the following beats to its new timeline; nil stops following")
    func tempoChangeAndStop() throws {
        let slow = BeatTimeline(tempo: .of(100), beat: 0, hostTime: HostTime(nanoseconds: 0), quantum: 4)
        let source = FixedTempoSource(slow)
        let session = try Self.session()
        session.follow(source)
        let sink = OnsetSink(channels: 1)
        try session.render(frameCount: 48_000 * 5, to: sink)
        // At host time 5 s the source has reached beat 100·5/60 = 8.33…; from there on it runs at 140 BPM.
        let fast = BeatTimeline(tempo: .of(140), beat: 100.0 * 5 / 60, hostTime: HostTime(nanoseconds: 5_000_000_000))
        source.set(fast)
        try session.render(frameCount: 48_000 * 5, to: sink)
        let frames = sink.onsets.map(\.frame)
        let early = frames.filter { $0 < 48_000 * 5 }
        let expectedEarly = (0..<early.count).map { (beat: Int) -> SampleTime in
            Self.frame(ofSourceBeat: Double(beat), on: slow)
        }
        #expect(early == expectedEarly)
        // Beat 9 was scheduled at 100 BPM (render blocks run 8192 frames ahead); the next ones follow 140.
        let late = frames.filter { $0 >= 48_000 * 5 + 8_192 * 2 }
        let firstLate = try #require(frames.firstIndex { $0 >= 48_000 * 5 + 8_192 * 2 })
        let expectedLate = (firstLate..<(firstLate + late.count)).map { (beat: Int) -> SampleTime in
            Self.frame(ofSourceBeat: Double(beat), on: fast)
        }
        #expect(late == expectedLate)
        session.follow(nil)
        #expect(session.followedBeatOffset == nil)
        let before = sink.onsets.count
        try session.render(frameCount: 48_000 * 3, to: sink)
        // Unfollowed, the transport keeps 140 BPM: 20 571.43 frames a beat, rounded once from the last anchor.
        let gaps = zip(sink.onsets.dropFirst(before), sink.onsets.dropFirst(before + 1)).map { $1.frame - $0.frame }
        #expect(!gaps.isEmpty && gaps.allSatisfy { $0 == 20_571 || $0 == 20_572 })
    }

    @Test("A source with no timeline (not connected, stopped) leaves the transport as it is")
    func noTimeline() throws {
        let session = try Self.session()
        session.follow(FixedTempoSource(nil))
        let sink = OnsetSink(channels: 1)
        try session.render(frameCount: 48_000 * 4, to: sink)
        #expect(sink.onsets.map(\.frame) == (0..<8).map { (index: Int) -> SampleTime in SampleTime(index) * 24_000 })
        #expect(session.followedBeatOffset == nil)
    }

    @Test(
        "A beat on the first unscheduled frame that the source hears a frame earlier (inside the tolerance) is played where it is: no quantum is skipped"
    )
    func aBeatOnTheScheduledEdgeWithinToleranceStays() throws {
        // The source hears every beat one frame (20.8 µs) before ours. With 4 000-frame blocks the scheduler reaches
        // 24 000 — beat 1's frame — exactly, so the next pass looks at beat 1 with the source's time for it 23 999,
        // just behind what is scheduled: a deviation the tolerance accepts, not a beat to move a quantum on (the
        // CI's TEMPO-4 recording lost 4 beats at 999 BPM this way).
        let timeline = BeatTimeline(tempo: .of(120), beat: 0, hostTime: HostTime(nanoseconds: -20_833), quantum: 4)
        let session = try Self.session()
        session.follow(FixedTempoSource(timeline))
        let sink = OnsetSink(channels: 1)
        try session.render(frameCount: 48_000 * 4, to: sink, blockFrames: 4_000)
        #expect(sink.onsets.map(\.frame) == (0..<8).map { (index: Int) -> SampleTime in SampleTime(index) * 24_000 })
    }
}

/// A source that lets its followers lead, by Link's rules: alone it takes a follower's tempo and phase when following
/// starts; a proposed tempo applies to its whole timeline, anchored at the proposed beat's time.
/// With `play` set, it shares play and stop too: a start is taken at the instant proposed (alone, as Link).
/// `leave()` and `rejoin(…)` stand for Link turned off and on again beside a peer.
final class SharedTempoSource: TempoSource {
    private let current: Locked<(timeline: BeatTimeline, proposals: [(tempo: Double, beat: Double)])>
    private let play: Locked<(state: SourcePlayState?, proposed: [SourcePlayState])>
    /// Off: no timeline. With peers: a proposed beat goes where Link's `requestBeatAtTime` puts it.
    private let presence = Locked((off: false, peers: false))

    init(_ timeline: BeatTimeline, play: SourcePlayState? = nil) {
        current = Locked((timeline, []))
        self.play = Locked((play, []))
    }

    /// No timeline from now on (Link off).
    func leave() { presence.withLock { $0.off = true } }

    /// A timeline again, with a peer, `nanoseconds` off from where it was (another peer's measurement of the same
    /// session): from now on a beat proposed goes to the next time at or after the one proposed where the phase
    /// matches it, numbering the source's beats anew there, and the tempo stays (Link's `requestBeatAtTime`).
    func rejoin(shiftedBy nanoseconds: Int64) {
        current.withLock { state in
            let timeline = state.timeline
            state.timeline = BeatTimeline(
                tempo: timeline.tempo, beat: timeline.beat,
                hostTime: HostTime(nanoseconds: timeline.hostTime.nanoseconds + nanoseconds), quantum: timeline.quantum)
        }
        presence.withLock { $0 = (false, true) }
    }

    /// Alone (on, no peer), a proposed beat is taken where it is proposed (Link's `requestBeatAtTime`).
    var takesOfferedBeat: Bool { presence.withLock { !$0.off && !$0.peers } }

    /// Alone, the timeline moved by `nanoseconds` with its tempo kept: Link founding a new session when the last other
    /// peer leaves, carried over through that peer's clock measurement.
    func refound(shiftedBy nanoseconds: Int64) {
        current.withLock { state in
            let timeline = state.timeline
            state.timeline = BeatTimeline(
                tempo: timeline.tempo, beat: timeline.beat,
                hostTime: HostTime(nanoseconds: timeline.hostTime.nanoseconds + nanoseconds), quantum: timeline.quantum)
        }
    }

    /// A peer's start or stop.
    func set(_ state: SourcePlayState) { play.withLock { $0.state = state } }

    /// The starts and stops proposed to it.
    var playProposals: [SourcePlayState] { play.withLock { $0.proposed } }

    func playState() -> SourcePlayState? { play.withLock { $0.state } }

    func propose(playing: Bool, at hostTime: HostTime) -> HostTime? {
        play.withLock { play in
            guard play.state != nil else { return nil }
            let state = SourcePlayState(isPlaying: playing, hostTime: hostTime)
            play.state = state
            play.proposed.append(state)
            return hostTime
        }
    }

    var proposals: [(tempo: Double, beat: Double)] { current.withLock { $0.proposals } }
    var timeline: BeatTimeline { current.withLock { $0.timeline } }

    func timeline(at time: HostTime) -> BeatTimeline? {
        guard !presence.withLock({ $0.off }) else { return nil }
        return current.withLock { state in
            BeatTimeline(
                tempo: state.timeline.tempo, beat: state.timeline.beat(at: time), hostTime: time,
                quantum: state.timeline.quantum)
        }
    }

    func propose(tempo: BPM, atBeat beat: Double, hostTime: HostTime) -> Bool {
        current.withLock { state in
            let at = state.timeline.hostTime(ofBeat: beat)
            state.timeline = BeatTimeline(tempo: tempo, beat: beat, hostTime: at, quantum: state.timeline.quantum)
            state.proposals.append((tempo.quarterNotesPerMinute, beat))
        }
        return true
    }

    func propose(beat: Double, at hostTime: HostTime, tempo: BPM) {
        let (off, peers) = presence.withLock { $0 }
        guard !off else { return }
        current.withLock { state in
            let timeline = state.timeline
            guard peers else {
                state.timeline = BeatTimeline(tempo: tempo, beat: beat, hostTime: hostTime, quantum: timeline.quantum)
                return
            }
            func phase(_ beat: Double) -> Double { beat - (beat / timeline.quantum).rounded(.down) * timeline.quantum }
            let here = timeline.beat(at: hostTime)
            let matching =
                here
                + (phase(beat) - phase(here) + timeline.quantum).truncatingRemainder(
                    dividingBy: timeline.quantum)
            state.timeline = BeatTimeline(
                tempo: timeline.tempo, beat: beat, hostTime: timeline.hostTime(ofBeat: matching),
                quantum: timeline.quantum)
        }
    }
}

@Suite("A session leads a source that lets it: our tempo changes are proposed at their beat")
struct TempoLeadTests {
    /// A source that lets followers lead, from `timeline`; a 120 BPM session following it; a sink for its clicks.
    static func following(_ timeline: BeatTimeline) throws -> (SharedTempoSource, Session, OnsetSink) {
        let source = SharedTempoSource(timeline)
        let session = try TempoFollowerTests.session()
        session.follow(source)
        return (source, session, OnsetSink(channels: 1))
    }

    @Test(
        "Link off and on again beside a peer: the source numbering our beats a quantum on when it takes our offered beat (its next time in phase, 10 µs of clock noise deciding) moves no click"
    )
    func backBesideAPeer() throws {
        let (source, session, sink) = try Self.following(
            BeatTimeline(tempo: .of(120), beat: 0, hostTime: HostTime(nanoseconds: 0), quantum: 4))
        try session.render(frameCount: 48_000 * 2, to: sink)
        source.leave()
        try session.render(frameCount: 48_000, to: sink)
        // The peer's session, ours before, measured 10 µs earlier: the beat we offer is just past its time in phase,
        // so the next one is a quantum on.
        source.rejoin(shiftedBy: -10_000)
        try session.render(frameCount: 48_000 * 3, to: sink)
        // A beat every 24 000 frames throughout (the 10 µs is half a frame, under the tolerance): nothing lost.
        #expect(sink.onsets.map(\.frame) == (0..<12).map { (index: Int) -> SampleTime in SampleTime(index) * 24_000 })
        // The source's beats as it numbers them now: our beat 12 is its beat 12 + offset, heard at its time.
        let offset = try #require(session.followedBeatOffset)
        let heard = source.timeline.hostTime(ofBeat: 12 + offset).nanoseconds
        #expect(abs(heard - 6_000_000_000) < 20_000, "our beat 12 is the source's beat \(12 + offset), at \(heard) ns")
    }

    @Test(
        "Alone, a source's timeline moved by 100 µs (a session founded anew when the last peer left) moves no click: the source is moved back to our beat"
    )
    func aloneTheSourceMovesBack() throws {
        let (source, session, sink) = try Self.following(
            BeatTimeline(tempo: .of(120), beat: 0, hostTime: HostTime(nanoseconds: 0), quantum: 4))
        try session.render(frameCount: 48_000 * 2, to: sink)
        // 100 µs is 4.8 frames, over the tolerance: alone, the source is moved back to our beat (beside a peer, the
        // beat would stay, under `moveBeyond`).
        source.refound(shiftedBy: 100_000)
        try session.render(frameCount: 48_000 * 3, to: sink)
        #expect(sink.onsets.map(\.frame) == (0..<10).map { (index: Int) -> SampleTime in SampleTime(index) * 24_000 })
        // The source's beats are ours again, to the nanosecond of a frame's rounding: our beat 10 at 5 s.
        let offset = try #require(session.followedBeatOffset)
        let heard = source.timeline.hostTime(ofBeat: 10 + offset).nanoseconds
        #expect(abs(heard - 5_000_000_000) < 11_000, "our beat 10 is the source's beat \(10 + offset), at \(heard) ns")
        #expect(source.timeline.tempo == .of(120))
    }

    @Test(
        "A ramp, alone: each beat proposes the ramp's mean tempo over that beat from the beat, so every click stays where the unfollowed render puts it; the song's end, back at its top, proposes nothing more"
    )
    func rampProposedBeatByBeat() throws {
        // 2 bars from 100 to 140, linear in beats: T(x) = 100 + 5x; the mean tempo over beat k is 5 / ln(T(k+1)/T(k)).
        let map = try TempoMap(sections: [try TempoSection(bars: 2, tempo: BPM(100), endTempo: BPM(140))])
        let unfollowed = try Session(
            map: map, clicks: Impulses.clickSet(), configuration: try MixerConfiguration(channels: 1))
        let alone = OnsetSink(channels: 1)
        try unfollowed.render(frameCount: 48_000 * 6, to: alone)
        let source = SharedTempoSource(
            BeatTimeline(tempo: .of(100), beat: 0, hostTime: HostTime(nanoseconds: 0), quantum: 4))
        let session = try Session(
            map: map, clicks: Impulses.clickSet(), configuration: try MixerConfiguration(channels: 1))
        session.follow(source)
        let sink = OnsetSink(channels: 1)
        try session.render(frameCount: 48_000 * 6, to: sink)
        #expect(sink.onsets.map(\.frame) == alone.onsets.map(\.frame))
        #expect(sink.onsets.count == 8)
        // The first look is at beat 1 (beat 0 went with the first block): the source, alone, took our phase and that
        // beat's tempo, so its beat k is ours (the offset is gone once stopped). Then beats 2 to 7 are proposed, each
        // its mean; the song's end is no beat, and proposes nothing.
        let proposals = source.proposals
        let proposedBeats = (2...7).map { (beat: Int) -> Double in Double(beat) }
        #expect(proposals.map(\.beat) == proposedBeats, "\(proposals)")
        var means: [Double] = []
        for k in 2...7 {
            let (from, to): (Double, Double) = (100 + 5 * Double(k), 100 + 5 * Double(k + 1))
            means.append(5 / log(to / from))
        }
        let atTheMeans = zip(proposals.map(\.tempo), means).allSatisfy { (pair: (Double, Double)) -> Bool in
            abs(pair.0 - pair.1) < 1e-9
        }
        #expect(proposals.count == means.count && atTheMeans, "\(proposals) against \(means)")
        // Stopped at the end, back at the top (100 BPM): not a change of ours; the source keeps the last beat's.
        #expect(session.state == .stopped)
        #expect(abs(source.timeline.tempo.quarterNotesPerMinute - means[5]) < 1e-9)
    }

    @Test("Alone, the source takes our tempo and phase (nothing moves); a tempo change of ours is proposed at its beat")
    func proposesOurChanges() throws {
        // The source starts at 97 BPM, beat 2.6 at host time 0: a lone Link session that takes our 120 and our phase.
        let (source, session, sink) = try Self.following(
            BeatTimeline(tempo: .of(97), beat: 2.6, hostTime: HostTime(nanoseconds: 0), quantum: 4))
        session.send(.setTempo(.of(150)), at: .position(Position(ticks: 8 * Position.ticksPerQuarter)))
        try session.render(frameCount: 48_000 * 8, to: sink)
        // Our clicks as if nothing followed: 120 BPM to beat 8 (frame 192 000), then 150 BPM (19 200 frames), to 8 s.
        let expected =
            (0...8).map { (index: Int) -> SampleTime in SampleTime(index) * 24_000 }
            + (1..<20).map { (index: Int) -> SampleTime in 192_000 + SampleTime(index) * 19_200 }
        #expect(sink.onsets.map(\.frame) == Array(expected.prefix(sink.onsets.count)))
        #expect(sink.onsets.count == 9 + 9)
        // One proposal: 150 from the source beat of our beat 8, where our change starts (applied when beat 8 was
        // scheduled, so seen at beat 9).
        let proposals = source.proposals
        #expect(proposals.count == 1)
        #expect(proposals.first?.tempo == 150)
        let offset = try #require(session.followedBeatOffset)
        #expect(proposals.first?.beat == 8 + offset)
        #expect(source.timeline.tempo == .of(150))
    }
}

@Suite("A session shares play and stop with a source that shares them")
struct SharedPlayStopTests {
    static let timeline = BeatTimeline(tempo: .of(120), beat: 0, hostTime: HostTime(nanoseconds: 0), quantum: 4)

    /// A stopped source that shares play and stop, a session waiting to play that follows it, and a sink that has
    /// had the first second from it (silence).
    static func stoppedTogether() throws -> (SharedTempoSource, Session, OnsetSink) {
        let source = SharedTempoSource(
            Self.timeline, play: SourcePlayState(isPlaying: false, hostTime: HostTime(nanoseconds: 0)))
        let session = try Session(
            map: try TempoMap.steady(tempo: .of(120)), clicks: Impulses.clickSet(),
            configuration: try MixerConfiguration(channels: 1), playing: false)
        session.follow(source)
        let sink = OnsetSink(channels: 1)
        try session.render(frameCount: 48_000, to: sink)
        return (source, session, sink)
    }

    @Test("A peer's start at 1.5 s starts us on the source's next quantum boundary (2 s); its stop at 4.1 s stops us")
    func followsPeerStartAndStop() throws {
        let (source, session, sink) = try Self.stoppedTogether()
        #expect(sink.onsets.isEmpty)
        source.set(SourcePlayState(isPlaying: true, hostTime: HostTime(nanoseconds: 1_500_000_000)))
        try session.render(frameCount: 48_000 * 3, to: sink)
        source.set(SourcePlayState(isPlaying: false, hostTime: HostTime(nanoseconds: 4_100_000_000)))
        try session.render(frameCount: 48_000 * 3, to: sink)
        // Bar 1 on the source's beat 4 (2 s), then every beat to 4.0 s; nothing from the stop at 4.1 s on.
        #expect(sink.onsets.map(\.frame) == [96_000, 120_000, 144_000, 168_000, 192_000])
        #expect(sink.onsets.first.map { Impulses.level(of: $0.value) } == "X")
        #expect(source.playProposals.isEmpty)
    }

    @Test(
        "A peer's start after its stop keeps our bars' frames when its boundary is within 0.25 ms of them (1.5 and 5 frames off: the clocks' noise), and goes to the boundary when further (20 frames)",
        arguments: [
            (shift: 31_250, start: 288_000), (shift: 104_167, start: 288_000), (shift: 416_667, start: 288_020),
        ])
    func restartKeepsTheGridWithinTolerance(shift: Int64, start: SampleTime) throws {
        let (source, session, sink) = try Self.stoppedTogether()
        source.set(SourcePlayState(isPlaying: true, hostTime: HostTime(nanoseconds: 1_500_000_000)))
        try session.render(frameCount: 48_000 * 3, to: sink)
        source.set(SourcePlayState(isPlaying: false, hostTime: HostTime(nanoseconds: 4_100_000_000)))
        try session.render(frameCount: 48_000, to: sink)
        // Stopped, the session's timeline is measured `shift` ns later (another look of the clocks), and a peer starts.
        source.rejoin(shiftedBy: shift)
        source.set(SourcePlayState(isPlaying: true, hostTime: HostTime(nanoseconds: 5_500_000_000)))
        try session.render(frameCount: 48_000 * 3, to: sink)
        // The first run: bar 1 on 2 s to 4.0 s; the second from the source's boundary at 6 s to 7.5 s, 24 000 apart.
        let frames = sink.onsets.map(\.frame)
        #expect(Array(frames.prefix(5)) == [96_000, 120_000, 144_000, 168_000, 192_000])
        #expect(Array(frames.dropFirst(5)) == (0..<4).map { start + $0 * 24_000 })
    }

    @Test(
        "On an output clock fitted 30 ppm fast (a loaded machine's fit), a peer's restart keeps our bars' frames: whole beats of 24 000 frames after the first run's, not of the fit's 24 000.72"
    )
    func restartKeepsTheGridOnAFitOffNominal() throws {
        let source = SharedTempoSource(
            Self.timeline, play: SourcePlayState(isPlaying: false, hostTime: HostTime(nanoseconds: 0)))
        let session = try Session(
            map: try TempoMap.steady(tempo: .of(120)), clicks: Impulses.clickSet(),
            configuration: try MixerConfiguration(channels: 1), playing: false)
        session.follow(source)
        let sink = OnsetSink(channels: 1)
        let clock = VirtualClock(start: HostTime(nanoseconds: 0), framesPerSecond: 48_000 * (1 + 30e-6))
        try session.render(frameCount: 48_000, to: sink, clock: clock)
        source.set(SourcePlayState(isPlaying: true, hostTime: HostTime(nanoseconds: 1_500_000_000)))
        try session.render(frameCount: 48_000 * 3, to: sink, clock: clock)
        source.set(SourcePlayState(isPlaying: false, hostTime: HostTime(nanoseconds: 4_100_000_000)))
        try session.render(frameCount: 48_000, to: sink, clock: clock)
        source.rejoin(shiftedBy: 0)
        source.set(SourcePlayState(isPlaying: true, hostTime: HostTime(nanoseconds: 5_500_000_000)))
        try session.render(frameCount: 48_000 * 3, to: sink, clock: clock)
        // The first run from the source's 2 s (frame 96 002.88 on this clock) to 4.0 s; the second from its 6 s
        // (288 008.64), within 12 frames of our bars: on them, 8 beats of 24 000 frames after the first run's start.
        let frames = sink.onsets.map(\.frame)
        let first = try #require(frames.first)
        #expect(abs(Double(first) - 96_002.88) <= 1, "\(frames)")
        #expect(frames == (0..<5).map { first + $0 * 24_000 } + (0..<4).map { first + 192_000 + $0 * 24_000 })
    }

    @Test("Our start goes to the source (alone, it takes it at once) and our stop is proposed at its frame")
    func proposesOurStartAndStop() throws {
        let (source, session, sink) = try Self.stoppedTogether()
        session.send(.play)
        try session.render(frameCount: 48_000 * 2, to: sink)
        session.send(.stop, at: .frame(48_000 * 4 - 100))
        try session.render(frameCount: 48_000 * 2, to: sink)
        let proposals = source.playProposals
        #expect(proposals.map(\.isPlaying) == [true, false])
        let start = try #require(sink.onsets.first?.frame)
        let mapping = ClockMapping(frame: 0, hostTime: HostTime(nanoseconds: 0), framesPerSecond: 48_000)
        let proposedFrames = proposals.map { mapping.frame(at: $0.hostTime) }
        let expectedFrames: [SampleTime] = [start, 48_000 * 4 - 100]
        #expect(proposedFrames == expectedFrames)
        #expect(sink.onsets.allSatisfy { $0.frame < 48_000 * 4 - 100 })
        #expect(sink.onsets.count >= 3)
    }

    @Test(
        "A map loaded at once (a set's switch) while the source is stopped waits for its start: the source's start at 2.5 s plays it from its top on the next quantum boundary (4 s)"
    )
    func loadWaitsForTheSourcesStart() throws {
        let (source, session, sink) = try Self.stoppedTogether()
        let clicks = Impulses.clickSet()
        try session.load(MapLoad(map: try TempoMap.steady(tempo: .of(120)), clicks: clicks), at: .now)
        try session.render(frameCount: 48_000, to: sink)
        #expect(sink.onsets.isEmpty)
        #expect(session.state == .stopped)
        source.set(SourcePlayState(isPlaying: true, hostTime: HostTime(nanoseconds: 2_500_000_000)))
        try session.render(frameCount: 48_000 * 3, to: sink)
        // The source's beat 8 (4 s), then every beat to 4.5 s; the first an accent, the loaded map's top.
        #expect(sink.onsets.map(\.frame) == [192_000, 216_000])
        #expect(sink.onsets.first.map { Impulses.level(of: $0.value) } == "X")
    }
}

@Suite("Stopped, a follower proposes only a tempo change of ours")
struct StoppedFollowerTests {
    @Test(
        "The source's tempo asked of our map and not applied (a session ending as its map does) is no change of ours: nothing proposed; a tempo we set after is"
    )
    func unappliedTempoIsNoChange() throws {
        let map = try TempoMap.steady(tempo: .of(130))
        var transport = Transport(map: map)
        // A source with a peer at 174 BPM: it keeps its tempo when we offer ours.
        let source = SharedTempoSource(
            BeatTimeline(tempo: .of(174), beat: 0, hostTime: HostTime(nanoseconds: 0), quantum: 4))
        source.rejoin(shiftedBy: 0)
        var follower = TempoFollower(source: source)
        let mapping = ClockMapping(frame: 0, hostTime: HostTime(nanoseconds: 0), framesPerSecond: 48_000)
        func look(_ seconds: Int64) -> [(TransportCommand, Quantization?)] {
            follower.commands(
                transport: transport, scheduledUntil: 0, mapping: mapping,
                now: HostTime(nanoseconds: seconds * 1_000_000_000))
        }
        // Each look asks our map to take 174; the session never applies it.
        for second in Int64(1)...3 {
            let asked = look(second)
            #expect(asked.map { $0.0 } == [TransportCommand.setTempo(.of(174))], "\(asked)")
        }
        #expect(source.proposals.isEmpty, "\(source.proposals)")
        // A tempo set on our side while stopped (a key) is ours: proposed.
        transport.send(.setTempo(.of(140)))
        let due = try #require(transport.nextDue(now: 0))
        transport.applyNext(frame: due.frame, position: due.position)
        #expect(look(4).isEmpty)
        #expect(source.proposals.map(\.tempo) == [140], "\(source.proposals)")
    }
}

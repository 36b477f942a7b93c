import MetronomeApp
import MetronomeEngine
import MetronomeLive
import MetronomeModel
import MetronomeTestSupport
import Testing

/// A source of beats with peers of its own (it never takes a tempo or phase offered): Link's session as a set sees
/// it, on the render's virtual clock.
private final class PeeredSource: TempoSource {
    let timeline: BeatTimeline

    init(_ timeline: BeatTimeline) { self.timeline = timeline }

    func timeline(at time: HostTime) -> BeatTimeline? { timeline }
}

/// A set led by a clock, rendered offline to the frame: Link's session (a `TempoSource`) or a MIDI clock (its
/// messages in the follower's inbox). A switch on the bar line lands on the playing song's bar, in phase; a switch at
/// once waits for the leader's next bar; every click of every song is on the leader's beat.
@Suite("MetronomeApp: a setlist led by Link or a MIDI clock keeps the session's phase")
struct SetlistLeaderTests {
    /// A 120 4/4 (its switch on the bar line), B 90 3/4 with a count-in bar (its switch at once), C 150 4/4; each
    /// song's sounds of its own height (A 1×, B ½×, C ¼×).
    static let text = """
        song "A" click 120 4/4
        song "B" click 90 3/4 count-in 1 switch now
        song "C" click 150 4/4
        """

    /// 100 BPM: a beat is 28 800 frames, a bar of the leader (4 beats) 115 200.
    static let beat = 28_800

    /// Which song an onset's height is from: A's clicks are 0.6 or more, B's 0.245 to 0.4 (its count-in's beats
    /// 0.245), C's 0.2 or less.
    static func song(of height: Float) -> String { height >= 0.5 ? "A" : height > 0.21 ? "B" : "C" }

    /// The first frame of each song's clicks, in order of the songs heard.
    static func firstFrames(_ onsets: [(frame: Int, height: Float)]) -> [String: Int] {
        var first: [String: Int] = [:]
        for onset in onsets where first[song(of: onset.height)] == nil { first[song(of: onset.height)] = onset.frame }
        return first
    }

    @Test(
        "Following Link at 100 BPM: A's next-bar switch lands on its bar line (source beat 8), B's switch at once waits for the next quantum (beat 12); every click on a source beat"
    )
    func link() throws {
        let plan = try SetlistPlayerTests.plan(Self.text)
        let session = try SetlistPlayer.session(
            plan, configuration: plan.songs[0].plan.mixerConfiguration(), lookahead: nil)
        let player = SetlistPlayer(plan: plan, session: session)
        let timeline = BeatTimeline(tempo: .of(100), beat: 0, hostTime: HostTime(nanoseconds: 0), quantum: 4)
        session.follow(PeeredSource(timeline))
        let sink = OnsetSink()
        var actions: [(SampleTime, () -> Void)] = [(130_000, player.next), (300_000, player.next)]
        try session.render(frameCount: 480_000, to: sink, blockFrames: 1024) { done in
            while let (frame, act) = actions.first, done >= frame {
                act()
                actions.removeFirst()
            }
            return true
        }
        let onsets = sink.onsets
        // Every click on the source's beat grid, none missing or doubled: 0, 28 800, … 460 800.
        #expect(onsets.map(\.frame) == (0..<17).map { $0 * Self.beat })
        // A asked to switch at 130 000 lands on its bar 3 (A plays at the source's 100 BPM: bars of 115 200 frames);
        // B's at 300 000, with B's switch at once, on the source's next quantum boundary.
        #expect(Self.firstFrames(onsets) == ["A": 0, "B": 230_400, "C": 345_600])
        // The session's beat numbering is the source's: C's first click is beat 12, on phase 0.
        #expect(session.followedBeatOffset == 12)
        #expect(player.current == 2)
    }

    @Test("Following Link, a song that moves on by itself starts on the source's next quantum after its gap")
    func linkMovesOn() throws {
        let text = """
            song "A" click 120 4/4 bars 1 then after 0.1s
            song "B" click 90 3/4
            """
        let plan = try SetlistPlayerTests.plan(text, scales: [1, 0.5])
        let session = try SetlistPlayer.session(
            plan, configuration: plan.songs[0].plan.mixerConfiguration(), lookahead: nil)
        let timeline = BeatTimeline(tempo: .of(100), beat: 0, hostTime: HostTime(nanoseconds: 0), quantum: 4)
        session.follow(PeeredSource(timeline))
        let sink = OnsetSink()
        try session.render(frameCount: 300_000, to: sink, blockFrames: 1024)
        let onsets = sink.onsets
        // A's bar ends at 115 200; 0.1 s on (120 000) the next quantum is 230 400, where B starts, on the grid.
        #expect(onsets.map(\.frame) == [0, 1, 2, 3, 8, 9, 10].map { $0 * Self.beat })
        #expect(Self.firstFrames(onsets) == ["A": 0, "B": 230_400])
    }

    /// A MIDI clock at 100 BPM (a tick every 1 200 frames), its Start at frame 0 and its first tick at 24 000, with
    /// a Stop at 300 000 and a Start at 360 100 (ticks running throughout), pushed to the follower's inbox `lead`
    /// frames before the render reaches them.
    static func clockMessages() -> [(frame: SampleTime, message: MIDIMessage)] {
        var messages: [(SampleTime, MIDIMessage)] = [(0, MIDIMessage(0xFA))]
        for tick in 0..<400 { messages.append((SampleTime(24_000 + tick * 1_200), MIDIMessage(0xF8))) }
        messages.append((300_000, MIDIMessage(0xFC)))
        messages.append((360_100, MIDIMessage(0xFA)))
        return messages.sorted { $0.0 < $1.0 }
    }

    @Test(
        "Following a MIDI clock: A's next-bar switch on the clock's bar, B's at once on the clock's next bar, a switch while the clock is stopped waits for its Start; every click on a clock beat"
    )
    func midiClock() throws {
        let plan = try SetlistPlayerTests.plan(Self.text)
        var first = SetlistPlayer.firstPlan(plan)
        first.waits = true
        let session = try SetlistPlayer.session(
            plan, first: first, configuration: plan.songs[0].plan.mixerConfiguration(), lookahead: nil)
        let player = SetlistPlayer(plan: plan, session: session)
        let clock = MIDIClockFollower(inbox: MIDIInbox(capacity: 4096), framesPerSecond: 48_000)
        session.add(follower: clock)
        let sink = OnsetSink()
        var messages = Self.clockMessages()[...]
        var actions: [(SampleTime, () -> Void)] = [
            (130_000, player.next), (200_000, player.next), (320_000, player.previous),
        ]
        let lead: SampleTime = 6_000
        while let next = messages.first, next.frame < lead {
            _ = clock.inbox.push(next.message, at: next.frame)
            messages.removeFirst()
        }
        try session.render(frameCount: 480_000, to: sink, blockFrames: 1024) { done in
            while let next = messages.first, next.frame < done + lead {
                _ = clock.inbox.push(next.message, at: next.frame)
                messages.removeFirst()
            }
            while let (frame, act) = actions.first, done >= frame {
                act()
                actions.removeFirst()
            }
            return true
        }
        let onsets = sink.onsets
        // Song tick 0 on the first tick (24 000); beats every 28 800. A: 24 000 … 110 400; its switch asked at
        // 130 000 lands on its bar 2 (song tick 96, 139 200); B's, at once, at 200 000 waits for the clock's next
        // bar (song tick 192, 254 400): B at 139 200 … 225 600, C at 254 400 and 283 200. The Stop at 300 000
        // pauses C; B, chosen at 320 000, waits for the Start, and plays from its top on the tick after it (361 200).
        let played = (0..<10).map { 24_000 + $0 * Self.beat }
        let restarted = (0..<5).map { 361_200 + $0 * Self.beat }
        #expect(onsets.map(\.frame) == played + restarted)
        #expect(onsets.map { Self.song(of: $0.height) } == Array("AAAABBBBCCBBBBB").map(String.init))
        #expect(Self.firstFrames(onsets) == ["A": 24_000, "B": 139_200, "C": 254_400])
        #expect(clock.status.lateStarts == 0)
        #expect(player.current == 1)
    }
}

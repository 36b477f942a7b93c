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

    /// A 120 4/4 switching at once, B 90 3/4; B's sounds half A's height.
    static func atOncePlan() throws -> SetlistPlan {
        let text = """
            song "A" click 120 4/4 switch now
            song "B" click 90 3/4
            """
        return try SetlistPlayerTests.plan(text, scales: [1, 0.5])
    }

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

    /// Renders `plan`'s set following a Link session with peers of its own at 100 BPM, quantum 4, its beat 0 heard
    /// `heardAfter` nanoseconds after our frame 0, calling each action once the render reaches its frame.
    static func renderLinked(
        _ plan: SetlistPlan, heardAfter: Int64 = 0, frames: SampleTime,
        actions: [(SampleTime, (SetlistPlayer, Session) -> Void)] = []
    ) throws -> (onsets: [(frame: Int, height: Float)], player: SetlistPlayer, session: Session) {
        let session = try SetlistPlayer.session(
            plan, configuration: plan.songs[0].plan.mixerConfiguration(), lookahead: nil)
        let player = SetlistPlayer(plan: plan, session: session)
        let timeline = BeatTimeline(
            tempo: .of(100), beat: 0, hostTime: HostTime(nanoseconds: heardAfter), quantum: 4)
        session.follow(PeeredSource(timeline))
        let sink = OnsetSink()
        var actions = actions[...]
        try session.render(frameCount: frames, to: sink, blockFrames: 1024) { done in
            while let (frame, act) = actions.first, done >= frame {
                act(player, session)
                actions.removeFirst()
            }
            return true
        }
        return (sink.onsets, player, session)
    }

    @Test(
        "Following Link at 100 BPM: A's next-bar switch lands on its bar line (source beat 8), B's switch at once waits for the next quantum (beat 12); every click on a source beat"
    )
    func link() throws {
        let plan = try SetlistPlayerTests.plan(Self.text)
        let (onsets, player, session) = try Self.renderLinked(
            plan, frames: 480_000,
            actions: [(130_000, { songs, _ in songs.next() }), (300_000, { songs, _ in songs.next() })])
        // Every click on the source's beat grid, none missing or doubled: 0, 28 800, … 460 800.
        #expect(onsets.map(\.frame) == (0..<17).map { $0 * Self.beat })
        // A asked to switch at 130 000 lands on its bar 3 (A plays at the source's 100 BPM: bars of 115 200 frames);
        // B's at 300 000, with B's switch at once, on the source's next quantum boundary.
        #expect(Self.firstFrames(onsets) == ["A": 0, "B": 230_400, "C": 345_600])
        // The session's beat numbering is the source's: C's first click is beat 12, on phase 0.
        #expect(session.followedBeatOffset == 12)
        #expect(player.current == 2)
    }

    @Test(
        "Following Link whose beats are heard 1.5 or 5 frames after ours (within 0.25 ms, so ours stay): a switch on the bar line lands on our bar line, not a few frames after it beside the old song's downbeat",
        arguments: [31_250, 104_167])
    func linkWithinTolerance(heardAfter: Int64) throws {
        let plan = try SetlistPlayerTests.plan(Self.text)
        // 1.5 frames at 48 kHz: 31 250 ns; 5 frames: 104 167.
        let (onsets, _, _) = try Self.renderLinked(
            plan, heardAfter: heardAfter, frames: 300_000, actions: [(130_048, { songs, _ in songs.next() })])
        // A on our grid (5 frames off stays: under 0.25 ms), then B from A's bar 3 (230 400), our bar line, one onset
        // a beat, none doubled; B's beats after its first on the source's times (its tempo set to the source's
        // there), rounded.
        let frames = onsets.map(\.frame)
        let shift = Int((Double(heardAfter) * 48_000 / 1e9).rounded())
        #expect(frames == (0..<9).map { $0 * Self.beat } + (9..<11).map { $0 * Self.beat + shift }, "\(frames)")
        #expect(Self.firstFrames(onsets) == ["A": 0, "B": 230_400])
    }

    @Test(
        "Following Link whose beats are heard 1.5 frames after ours: a switch at once lands on our beat on the next quantum, not on the source's frame two after it beside the old song's beat"
    )
    func linkAtOnceWithinTolerance() throws {
        let (onsets, _, _) = try Self.renderLinked(
            try Self.atOncePlan(), heardAfter: 31_250, frames: 400_000,
            actions: [(300_000, { songs, _ in songs.next() })])
        // A on our grid to beat 11, then B from beat 12 (345 600): one onset a beat, none doubled, each within 2
        // frames of our grid (B's after its first on the source's times, rounded: 2 frames on).
        let frames = onsets.map(\.frame)
        #expect(frames.count == 14, "\(frames)")
        let onTheGrid = frames.enumerated().allSatisfy { (beat: (offset: Int, element: Int)) -> Bool in
            abs(beat.element - beat.offset * Self.beat) <= 2
        }
        #expect(onTheGrid, "\(frames)")
        #expect(Self.firstFrames(onsets) == ["A": 0, "B": 345_600])
    }

    @Test(
        "A switch at once taken in the pass just after our downbeat on the session's bar line was scheduled (the bar line 3 frames before the first free frame, inside 0.25 ms) waits for the next bar line: the old song's downbeat and the new song's first do not both sound"
    )
    func linkAtOnceJustAfterABarLine() throws {
        // The session's bar lines at 509 + n × 115 200 frames (10 604 167 ns is 509.0 frames), ours moved onto them
        // from the first look: bar 3's downbeat at 346 109. Rendered in blocks of 1024, scheduled two blocks ahead,
        // the switch asked once 345 088 frames are rendered is taken in the pass whose first free frame is 346 112.
        let (onsets, _, _) = try Self.renderLinked(
            try Self.atOncePlan(), heardAfter: 10_604_167, frames: 520_000,
            actions: [(345_088, { songs, _ in songs.next() })])
        let frames = onsets.map(\.frame)
        let first = Self.firstFrames(onsets)
        #expect(first["B"] == 461_309, "\(frames)")
        #expect(frames.contains(346_109), "\(frames)")
        #expect(zip(frames, frames.dropFirst()).allSatisfy { $1 - $0 > 1_000 }, "\(frames)")
    }

    @Test(
        "Following Link with quantum 4, a switch on the bar line of a 3/4 song lands on the source's first quantum at or after the song's next bar line"
    )
    func linkThreeFour() throws {
        let text = """
            song "B" click 90 3/4
            song "A" click 120 4/4
            """
        let plan = try SetlistPlayerTests.plan(text, scales: [0.5, 1])
        let (onsets, _, _) = try Self.renderLinked(
            plan, frames: 200_000, actions: [(30_720, { songs, _ in songs.next() })])
        // B's next bar line is source beat 3 (86 400), off the quantum: A starts on beat 4 (115 200).
        #expect(onsets.map(\.frame) == (0..<7).map { $0 * Self.beat })
        #expect(Self.firstFrames(onsets) == ["B": 0, "A": 115_200])
    }

    @Test(
        "Following Link, a song chosen during a gap after which the set would move on by itself wins: C lands on the quantum B would have had, and B never plays"
    )
    func linkChoiceInTheGap() throws {
        let text = """
            song "A" click 120 4/4 bars 1 then after 0.1s
            song "B" click 90 3/4
            song "C" click 150 4/4
            """
        let plan = try SetlistPlayerTests.plan(text)
        let (onsets, player, _) = try Self.renderLinked(
            plan, frames: 300_000, actions: [(150_528, { songs, _ in songs.select(song: 3) })])
        // A's bar (to 115 200), its gap, then C (not B) on the next quantum, 230 400.
        #expect(onsets.map(\.frame) == [0, 1, 2, 3, 8, 9, 10].map { $0 * Self.beat })
        #expect(Self.firstFrames(onsets) == ["A": 0, "C": 230_400])
        #expect(player.current == 2)
    }

    @Test(
        "Following Link, a switch sent while a pause is on its way (p, then n) goes behind the pause and starts B on the source's next quantum"
    )
    func linkSwitchBehindAPause() throws {
        let plan = try SetlistPlayerTests.plan(Self.text)
        let (onsets, player, _) = try Self.renderLinked(
            plan, frames: 300_000,
            actions: [
                (
                    30_720,
                    { songs, session in
                        session.send(.pause, at: .nextBeat)
                        songs.next()
                    }
                )
            ])
        // A's first two beats; paused on its third (57 600); B from the source's beat 4 (115 200), on its beats.
        #expect(onsets.map(\.frame) == [0, 1, 4, 5, 6, 7, 8, 9, 10].map { $0 * Self.beat })
        #expect(Self.firstFrames(onsets) == ["A": 0, "B": 115_200])
        #expect(player.current == 1)
    }

    @Test("Following Link, a song that moves on by itself starts on the source's next quantum after its gap")
    func linkMovesOn() throws {
        let text = """
            song "A" click 120 4/4 bars 1 then after 0.1s
            song "B" click 90 3/4
            """
        let plan = try SetlistPlayerTests.plan(text, scales: [1, 0.5])
        let (onsets, _, _) = try Self.renderLinked(plan, frames: 300_000)
        // A's bar ends at 115 200; 0.1 s on (120 000) the next quantum is 230 400, where B starts, on the grid.
        #expect(onsets.map(\.frame) == [0, 1, 2, 3, 8, 9, 10].map { $0 * Self.beat })
        #expect(Self.firstFrames(onsets) == ["A": 0, "B": 230_400])
    }

    /// A MIDI clock at 100 BPM (a tick every 1 200 frames), its Start at frame 0 and its first tick at 24 000, with
    /// a Stop at 300 000 and a Start at 360 100 (ticks running throughout).
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
        let (onsets, player, clock) = try Self.renderFollowing(
            plan, messages: Self.clockMessages(), frames: 480_000,
            actions: [
                (130_000, { songs, _ in songs.next() }), (200_000, { songs, _ in songs.next() }),
                (320_000, { songs, _ in songs.previous() }),
            ])
        // Song tick 0 on the first tick (24 000); beats every 28 800. A: 24 000 … 110 400; its switch asked at
        // 130 000 lands on its bar 2 (song tick 96, 139 200); B's, at once, at 200 000 waits for the clock's next
        // bar (song tick 192, 254 400): B at 139 200 … 225 600, C at 254 400 and 283 200. The Stop at 300 000
        // pauses C; B, chosen at 320 000, waits for the Start, and plays from its top on the tick after it (361 200).
        let played = (0..<10).map { 24_000 + $0 * Self.beat }
        let restarted = (0..<5).map { 361_200 + $0 * Self.beat }
        #expect(onsets.map(\.frame) == played + restarted)
        let expectedSongs = Array("AAAABBBBCCBBBBB").map { (letter: Character) -> String in String(letter) }
        #expect(onsets.map { Self.song(of: $0.height) } == expectedSongs)
        #expect(Self.firstFrames(onsets) == ["A": 24_000, "B": 139_200, "C": 254_400])
        #expect(clock.status.lateStarts == 0)
        #expect(player.current == 1)
    }

    /// Renders `plan`'s set following a MIDI clock whose messages are pushed `lead` frames before the render reaches
    /// them, calling each action once the render reaches its frame; the onsets, the player and the follower.
    static func renderFollowing(
        _ plan: SetlistPlan, messages: [(frame: SampleTime, message: MIDIMessage)], frames: SampleTime,
        actions: [(SampleTime, (SetlistPlayer, Session) -> Void)] = []
    ) throws -> (onsets: [(frame: Int, height: Float)], player: SetlistPlayer, clock: MIDIClockFollower) {
        var first = SetlistPlayer.firstPlan(plan)
        first.waits = true
        let session = try SetlistPlayer.session(
            plan, first: first, configuration: plan.songs[0].plan.mixerConfiguration(), lookahead: nil)
        let player = SetlistPlayer(plan: plan, session: session)
        let clock = MIDIClockFollower(inbox: MIDIInbox(capacity: 4096), framesPerSecond: 48_000)
        session.add(follower: clock)
        let sink = OnsetSink()
        var messages = messages.sorted { $0.frame < $1.frame }[...]
        var actions = actions[...]
        let lead: SampleTime = 6_000
        func push(before frame: SampleTime) {
            while let next = messages.first, next.frame < frame {
                _ = clock.inbox.push(next.message, at: next.frame)
                messages.removeFirst()
            }
        }
        push(before: lead)
        try session.render(frameCount: frames, to: sink, blockFrames: 1024) { done in
            push(before: done + lead)
            while let (frame, act) = actions.first, done >= frame {
                act(player, session)
                actions.removeFirst()
            }
            return true
        }
        return (sink.onsets, player, clock)
    }

    @Test(
        "Following a MIDI clock that speeds up from 100 to 120 BPM while a switch on the bar line is on its way: A follows the change, B lands on A's bar line at the new tempo, every click on its clock tick"
    )
    func clockChangesWhileASwitchWaits() throws {
        let plan = try SetlistPlayerTests.plan(Self.text)
        // Song tick 0 on the first clock (24 000); 1 200 frames a tick to tick 120 (168 000), then 1 000.
        var messages: [(frame: SampleTime, message: MIDIMessage)] = [(0, MIDIMessage(0xFA))]
        var frame: SampleTime = 24_000
        for tick in 0..<400 {
            messages.append((frame, MIDIMessage(0xF8)))
            frame += tick < 120 ? 1_200 : 1_000
        }
        func tickFrame(_ tick: Int) -> Int { tick <= 120 ? 24_000 + tick * 1_200 : 168_000 + (tick - 120) * 1_000 }
        // Next asked at 150 000, in A's bar 2 (from song tick 96): it lands on A's bar 3, song tick 192 (240 000).
        let (onsets, player, clock) = try Self.renderFollowing(
            plan, messages: messages, frames: 330_000, actions: [(150_000, { songs, _ in songs.next() })])
        let ticks = (0..<12).map { $0 * 24 }
        let off = zip(onsets.map(\.frame), ticks.map(tickFrame)).map { $0 - $1 }
        #expect(onsets.count == ticks.count, "\(onsets.map(\.frame))")
        #expect(off.allSatisfy { abs($0) <= 1 }, "clicks off their ticks (frames): \(off)")
        let expectedSongs = Array("AAAAAAAABBBB").map { (letter: Character) -> String in String(letter) }
        #expect(onsets.map { Self.song(of: $0.height) } == expectedSongs)
        #expect(player.current == 1)
        #expect(clock.status.lateStarts == 0)
    }

    @Test(
        "Following a MIDI clock, a song that moves on by itself (then after 0s) starts on the clock's bar at its end: every click on a clock beat"
    )
    func clockMovesOn() throws {
        let text = """
            song "A" click 120 4/4 bars 2 then after 0s
            song "B" click 90 3/4
            """
        let plan = try SetlistPlayerTests.plan(text, scales: [1, 0.5])
        var messages: [(frame: SampleTime, message: MIDIMessage)] = [(0, MIDIMessage(0xFA))]
        for tick in 0..<300 { messages.append((SampleTime(24_000 + tick * 1_200), MIDIMessage(0xF8))) }
        let (onsets, player, _) = try Self.renderFollowing(plan, messages: messages, frames: 380_000)
        // A's two bars at the clock's 100 BPM (28 800 frames a beat) from 24 000; B from song tick 192, 254 400.
        #expect(onsets.map(\.frame) == (0..<13).map { 24_000 + $0 * Self.beat })
        let expectedSongs = Array("AAAAAAAABBBBB").map { (letter: Character) -> String in String(letter) }
        #expect(onsets.map { Self.song(of: $0.height) } == expectedSongs)
        #expect(player.current == 1)
    }

    @Test(
        "Following a jittered MIDI clock (each tick ±0.25 ms), whose tempo is set again at nearly every beat: a switch on the bar line lands B on A's bar line from B's top, its count-in first, and every click stays within 2 frames of its beat"
    )
    func jitteredClockSwitch() throws {
        let text = """
            song "A" click 120 4/4
            song "B" click 90 3/4 count-in 1
            """
        let plan = try SetlistPlayerTests.plan(text, scales: [1, 0.5])
        // 100 BPM (1 200 frames a tick) from 24 000, each tick 12 frames early or late, by a fixed pattern.
        let jitter: [SampleTime] = [12, -12, -12, 12, 12, 12, -12, 12, -12, -12, 12, -12]
        var messages: [(frame: SampleTime, message: MIDIMessage)] = [(0, MIDIMessage(0xFA))]
        for tick in 0..<300 {
            messages.append((SampleTime(24_000 + tick * 1_200) + jitter[tick % jitter.count], MIDIMessage(0xF8)))
        }
        // Next at 130 000: A's bar 2 is song tick 96 (139 200); B's count-in bar of 3 beats and its bars follow.
        let (onsets, player, _) = try Self.renderFollowing(
            plan, messages: messages, frames: 380_000, actions: [(130_000, { songs, _ in songs.next() })])
        // The first click on the first tick as it came (24 012); every one after within 2 frames of its beat.
        let ideal = (0..<13).map { 24_000 + $0 * Self.beat }
        let off = zip(onsets.map(\.frame), ideal).map { $0 - $1 }
        #expect(onsets.count == ideal.count, "\(onsets.map(\.frame))")
        #expect(
            off.first == 12 && off.dropFirst().allSatisfy { abs($0) <= 2 }, "clicks off their beats (frames): \(off)")
        // A's four beats, then B from its top: its count-in's three (0.35, 0.245, 0.245), its bar 1's accent (0.4).
        let heights = onsets.map(\.height)
        #expect(heights.count > 7 && abs(heights[4] - 0.35) < 1e-6 && abs(heights[7] - 0.4) < 1e-6, "\(heights)")
        let expectedSongs = Array("AAAABBBBBBBBB").map { (letter: Character) -> String in String(letter) }
        #expect(onsets.map { Self.song(of: $0.height) } == expectedSongs)
        #expect(player.current == 1)
    }
}

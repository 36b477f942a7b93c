import Foundation
import MetronomeApp
import MetronomeEngine
import MetronomeFiles
import MetronomeLive
import MetronomeModel
import MetronomeTestSupport
import Testing

/// A set played live in one session, rendered offline to the frame: switches land on the playing song's next bar
/// line or at once, a song that moves on by itself starts its gap after its end, each song with its own sounds.
@Suite("MetronomeApp: a setlist switched while it plays")
struct SetlistPlayerTests {
    /// Three click songs: A 120 4/4 (4 bars, switch next-bar), B 90 3/4 (2 bars after a count-in bar, then after
    /// 1 s, switch now, volume 0.5: its clicks at 0.125), C 150 4/4 (2 bars). Each song's sounds are impulses of its
    /// own height (A 1×, B ½×, C ¼×).
    static let text = """
        song "A" click 120 4/4 bars 4
        song "B" click 90 3/4 bars 2 count-in 1 then after 1s switch now volume 0.5
        song "C" click 150 4/4 bars 2
        """

    /// The set's plan with impulse sounds of a height per song.
    static func plan(_ text: String = text, scales: [Float] = [1, 0.5, 0.25]) throws -> SetlistPlan {
        let scratch = try Scratch()
        let path = scratch.path + "/gig.setlist"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        var plan = try SetlistDocument(path: path).plan()
        for (index, scale) in scales.enumerated() { plan.songs[index].plan.clicks = impulses(scale) }
        return plan
    }

    /// The impulse clicks (`Impulses`) scaled.
    static func impulses(_ scale: Float) -> ClickSet {
        ClickSet(
            name: "impulses", summary: "test impulses",
            accent: SampleBuffer(channels: [[0.8 * scale]], name: "accent"),
            normal: SampleBuffer(channels: [[0.6 * scale]], name: "normal"),
            subdivision: SampleBuffer(channels: [[0.4 * scale]], name: "subdivision"),
            countIn: SampleBuffer(channels: [[0.7 * scale]], name: "count-in"))
    }

    /// Renders the set for `frames` into `sink`, calling `act` with the set's player and session once the render
    /// first reaches each frame of `actions`; the player.
    static func render(
        _ plan: SetlistPlan, frames: SampleTime, into sink: some AudioSink,
        actions: [(SampleTime, (SetlistPlayer, Session) -> Void)]
    ) throws -> SetlistPlayer {
        let session = try SetlistPlayer.session(
            plan, configuration: plan.songs[0].plan.mixerConfiguration(), lookahead: nil)
        let player = SetlistPlayer(plan: plan, session: session)
        var pending = actions
        try session.render(frameCount: frames, to: sink, blockFrames: 1024) { done in
            while let (frame, act) = pending.first, done >= frame {
                act(player, session)
                pending.removeFirst()
            }
            return true
        }
        return player
    }

    /// Renders the set for `frames` (`render(_:frames:into:actions:)`): every onset's frame and height.
    static func render(
        _ plan: SetlistPlan, frames: SampleTime, actions: [(SampleTime, (SetlistPlayer, Session) -> Void)]
    ) throws -> (onsets: [(frame: Int, height: Float)], player: SetlistPlayer) {
        let sink = OnsetSink()
        let player = try render(plan, frames: frames, into: sink, actions: actions)
        return (sink.onsets, player)
    }

    @Test("Next mid-song lands on A's next bar line; B moves on to C 1 s after its end, each with its own sounds")
    func nextBarAndMovingOn() throws {
        let plan = try Self.plan()
        let (onsets, player) = try Self.render(plan, frames: 640_000, actions: [(30_000, { songs, _ in songs.next() })])
        // A: bar 1 at 120 (24 000 frames a beat); the switch asked for at 30 000 lands on bar 2's downbeat, 96 000.
        var expected: [(Int, Float)] = [(0, 0.8), (24_000, 0.6), (48_000, 0.6), (72_000, 0.6)]
        // B: a count-in bar of 3/4 at 90 (32 000 a beat), then 2 bars; its sounds at half height.
        // B's volume 0.5 is its clicks' gain 0.125, from its first click.
        expected += (0..<3).map { (96_000 + $0 * 32_000, ($0 == 0 ? 0.35 : 0.245) * 0.125) }
        expected += (0..<6).map { (192_000 + $0 * 32_000, ($0 % 3 == 0 ? 0.4 : 0.3) * 0.125) }
        // B ends at 384 000; C starts 1 s (48 000 frames) later, at 150 (19 200 a beat), at a quarter height.
        expected += (0..<8).map { (432_000 + $0 * 19_200, $0 % 4 == 0 ? 0.2 : 0.15) }
        #expect(onsets.map(\.frame) == expected.map(\.0))
        for (onset, want) in zip(onsets, expected) {
            #expect(abs(onset.height - want.1) < 1e-6, "at \(onset.frame): \(onset.height), not \(want.1)")
        }
        #expect(player.current == 2)
        #expect(player.isOver)
        #expect(player.status.words == "song 3/3 C (ended)")
    }

    @Test(
        "A switch away from B ('switch now') lands at once, on the first frame not yet scheduled; B's 'then after' is off"
    )
    func switchNowLandsAtOnce() throws {
        let plan = try Self.plan()
        // To B at once from A (A's own switch is next-bar: 96 000), then from B at once to song 1 by number. Had B
        // played to its end (384 000), C would start at 432 000: A's 16 beats go on past it instead.
        let (onsets, player) = try Self.render(
            plan, frames: 520_000,
            actions: [(10_000, { songs, _ in songs.next() }), (150_000, { songs, _ in _ = songs.select(song: 1) })])
        let frames = onsets.map(\.frame)
        #expect(frames.prefix(5) == [0, 24_000, 48_000, 72_000, 96_000])
        // Asked once the render reached 150 000 (150 528), A lands on the first frame not yet scheduled (two blocks
        // ahead), its bar 1 from there.
        let landed = try #require(frames.first { $0 > 128_000 + 1 })
        #expect(frames.filter { $0 > 96_000 && $0 < landed } == [128_000])
        #expect(frames.filter { $0 >= landed } == (0..<16).map { landed + $0 * 24_000 })
        #expect(onsets.filter { $0.frame >= landed }.allSatisfy { $0.height == 0.8 || $0.height == 0.6 })
        #expect(player.current == 0)
        #expect(player.status.words == "song 1/3 A, next: B")
    }

    @Test("Waiting after a song that ends, next starts the following song at once; previous steps back from it")
    func waitingThenNextThenPrevious() throws {
        let plan = try Self.plan()
        // A ends at 384 000 and the set waits; next at 400 000 starts B on the first frame not yet scheduled, and
        // previous at 450 000 (B switches 'now') starts A again the same way.
        let (onsets, player) = try Self.render(
            plan, frames: 520_000,
            actions: [
                (
                    390_000,
                    { player, _ in
                        #expect(player.status.waiting)
                        #expect(player.status.words == "song 1/3 A (ended), next: B")
                    }
                ),
                (400_000, { songs, _ in songs.next() }),
                (450_000, { songs, _ in songs.previous() }),
            ])
        let frames = onsets.map(\.frame)
        #expect(frames.count == 16 + 2 + 3)
        let b = frames[16]
        #expect(b > 400_000 && b < 400_000 + 3 * 1024)
        #expect(frames[17] == b + 32_000)
        let a = frames[18]
        #expect(a > 450_000 && a < 450_000 + 3 * 1024)
        #expect(Array(frames.dropFirst(18)) == [a, a + 24_000, a + 48_000])
        #expect(onsets[18].height == 0.8)
        #expect(player.current == 0)
        #expect(player.status.words == "song 1/3 A, next: B")
    }
}

extension SetlistPlayerTests {
    @Test("A stop in B's gap keeps C from starting; a play then plays B again, which moves on again at its end")
    func stopInTheGap() throws {
        let plan = try Self.plan()
        // B ends at 384 000 (A switched away at its bar 2, 96 000); the stop at 400 000 is in the 1 s gap.
        let (stopped, _) = try Self.render(
            plan, frames: 640_000,
            actions: [(30_000, { songs, _ in songs.next() }), (400_000, { _, session in session.send(.stop) })])
        #expect(stopped.last.map { $0.frame < 384_000 } == true, "\(stopped.map(\.frame))")
        // Played again in the gap (at the first frame not yet scheduled), B plays its 9 beats and C follows 1 s later.
        let (again, player) = try Self.render(
            plan, frames: 900_000,
            actions: [(30_000, { songs, _ in songs.next() }), (400_000, { _, session in session.send(.play) })])
        let frames = again.map(\.frame)
        let replay = try #require(frames.first { $0 > 384_000 })
        #expect(replay > 400_000 && replay < 400_000 + 3 * 1024)
        let b: [Int] = (0..<9).map { replay + $0 * 32_000 }
        let c: [Int] = (0..<8).map { replay + 288_000 + 48_000 + $0 * 19_200 }
        #expect(Array(frames.drop { $0 < replay }) == b + c)
        #expect(player.current == 2)
    }

    @Test(
        "A stop while a switch on the bar line is on its way stops at once and drops the switch: nothing after the stop, the set still on A, no switch pending"
    )
    func stopDropsAPendingSwitch() throws {
        let plan = try Self.plan()
        // Next at 30 000 would land on A's bar 2 (96 000); the stop at 40 000 comes first.
        let (onsets, player) = try Self.render(
            plan, frames: 200_000,
            actions: [(30_000, { songs, _ in songs.next() }), (40_000, { _, session in session.send(.stop) })])
        #expect(onsets.map(\.frame) == [0, 24_000])
        #expect(player.current == 0)
        #expect(player.status.pending == nil)
    }

    @Test(
        "A switch sent while a pause is still on its way (p, then n, in one beat) goes behind it: B starts at once where the pause fell, as a switch while paused does"
    )
    func switchBehindAPendingPause() throws {
        let plan = try Self.plan()
        let (onsets, player) = try Self.render(
            plan, frames: 200_000,
            actions: [
                (
                    30_000,
                    { songs, session in
                        session.send(.pause, at: .nextBeat)
                        songs.next()
                    }
                )
            ])
        // A's first two beats; the pause at its third (48 000), and B from there: its count-in bar at 90 (32 000 a
        // beat, its sounds at an eighth of A's), then its bar 1.
        #expect(onsets.map(\.frame) == [0, 24_000] + (0..<5).map { 48_000 + $0 * 32_000 })
        #expect(onsets.dropFirst(2).allSatisfy { $0.height < 0.06 })
        #expect(player.current == 1)
        #expect(player.status.pending == nil)
    }

    @Test("Two songs with the same map and other sounds each land theirs; two presses go two songs on")
    func sameMapOtherSoundsAndTwoPresses() throws {
        let text = """
            song "A" click 120 4/4
            song "A again" click 120 4/4
            song "B" click 120 4/4
            """
        let plan = try Self.plan(text)
        // The three maps are the same: only the sounds tell the songs apart. Two presses at 30 000 and 31 000 go two
        // songs on, to B (quarter height) on bar 2 (96 000); "previous" at 130 000 goes to "A again" (half height) on
        // bar 3; "again" at 250 000 plays it from its top on bar 4.
        let (onsets, player) = try Self.render(
            plan, frames: 330_000,
            actions: [
                (30_000, { songs, _ in songs.next() }),
                (
                    31_000,
                    { songs, _ in
                        #expect(songs.status.pending == 1)
                        songs.next()
                        #expect(songs.status.pending == 2)
                    }
                ),
                (130_000, { songs, _ in songs.previous() }), (250_000, { songs, _ in songs.restart() }),
            ])
        #expect(onsets.map(\.frame) == (0..<14).map { $0 * 24_000 })
        let heights = onsets.map(\.height)
        let expected: [Float] = [0.8, 0.6, 0.2, 0.15, 0.4, 0.3, 0.4, 0.3]
        #expect([0, 1, 4, 5, 8, 9, 12, 13].map { heights[$0] } == expected)
        #expect(player.current == 1)
        #expect(player.status.words == "song 2/3 A again, next: B")
    }
}

/// Keeps the left channel's onsets (as `onsets(_:gap: 100)` finds them) with their heights, not the samples: the
/// renders here run beside tests that measure the process's resident memory.
final class OnsetSink: AudioSink {
    var onsets: [(frame: Int, height: Float)] = []
    private var frame = 0
    private var silent = 100

    func write(_ samples: UnsafePointer<Float>, frameCount: Int) throws {
        // Two channels, interleaved.
        for index in 0..<frameCount {
            let value = samples[index * 2]
            if value != 0 {
                if silent >= 100 { onsets.append((frame, value)) }
                silent = 0
            } else {
                silent += 1
            }
            frame += 1
        }
    }
}

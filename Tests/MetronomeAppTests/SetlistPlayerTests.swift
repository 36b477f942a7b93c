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
    /// 1 s, switch now), C 150 4/4 (2 bars). Each song's sounds are impulses of its own height (A 1×, B ½×, C ¼×).
    static let text = """
        song "A" click 120 4/4 bars 4
        song "B" click 90 3/4 bars 2 count-in 1 then after 1s switch now
        song "C" click 150 4/4 bars 2
        """

    /// The set's plan with impulse sounds of a height per song.
    static func plan() throws -> SetlistPlan {
        let scratch = try Scratch()
        let path = scratch.path + "/gig.setlist"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        var plan = try SetlistDocument(path: path).plan()
        for (index, scale) in [Float(1), 0.5, 0.25].enumerated() {
            plan.songs[index].plan.clicks = impulses(scale)
            plan.songs[index].plan.gain = 1
        }
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

    /// Renders the set for `frames`, calling `act` once when the render first reaches each frame of `actions`; every
    /// onset's frame and height.
    static func render(
        _ plan: SetlistPlan, frames: SampleTime, actions: [(SampleTime, (SetlistPlayer) -> Void)]
    ) throws -> (onsets: [(frame: Int, height: Float)], player: SetlistPlayer) {
        let session = try SetlistPlayer.session(
            plan, configuration: plan.songs[0].plan.mixerConfiguration(), lookahead: nil)
        let player = SetlistPlayer(plan: plan, session: session)
        let sink = LeftChannel()
        var pending = actions
        try session.render(frameCount: frames, to: sink, blockFrames: 1024) { done in
            while let (frame, act) = pending.first, done >= frame {
                act(player)
                pending.removeFirst()
            }
            return true
        }
        return (onsets(sink.samples, gap: 100).map { ($0, sink.samples[$0]) }, player)
    }

    @Test("Next mid-song lands on A's next bar line; B moves on to C 1 s after its end, each with its own sounds")
    func nextBarAndMovingOn() throws {
        let plan = try Self.plan()
        let (onsets, player) = try Self.render(plan, frames: 640_000, actions: [(30_000, { $0.next() })])
        // A: bar 1 at 120 (24 000 frames a beat); the switch asked for at 30 000 lands on bar 2's downbeat, 96 000.
        var expected: [(Int, Float)] = [(0, 0.8), (24_000, 0.6), (48_000, 0.6), (72_000, 0.6)]
        // B: a count-in bar of 3/4 at 90 (32 000 a beat), then 2 bars; its sounds at half height.
        expected += (0..<3).map { (96_000 + $0 * 32_000, $0 == 0 ? 0.35 : 0.245) }
        expected += (0..<6).map { (192_000 + $0 * 32_000, $0 % 3 == 0 ? 0.4 : 0.3) }
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

    @Test("A switch away from B ('switch now') lands at once, on the first frame not yet scheduled")
    func switchNowLandsAtOnce() throws {
        let plan = try Self.plan()
        // To B at once from A (A's own switch is next-bar: 96 000), then from B at once to song 1 by number.
        let (onsets, player) = try Self.render(
            plan, frames: 300_000,
            actions: [(10_000, { $0.next() }), (150_000, { _ = $0.select(song: 1) })])
        let frames = onsets.map(\.frame)
        #expect(frames.prefix(5) == [0, 24_000, 48_000, 72_000, 96_000])
        // Asked once the render reached 150 000 (150 528), A lands on the first frame not yet scheduled (two blocks
        // ahead), its bar 1 from there.
        let landed = try #require(frames.first { $0 > 128_000 + 1 })
        #expect(frames.filter { $0 > 96_000 && $0 < landed } == [128_000])
        #expect(
            frames.filter { $0 >= landed } == [
                landed, landed + 24_000, landed + 48_000, landed + 72_000, landed + 96_000, landed + 120_000,
                landed + 144_000,
            ])
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
                    { player in
                        #expect(player.status.waiting)
                        #expect(player.status.words == "song 1/3 A (ended), next: B")
                    }
                ),
                (400_000, { $0.next() }),
                (450_000, { $0.previous() }),
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

/// Keeps the left channel.
private final class LeftChannel: AudioSink {
    var samples: [Float] = []
    func write(_ samples: UnsafePointer<Float>, frameCount: Int) throws {
        // Two channels, interleaved.
        for index in 0..<frameCount { self.samples.append(samples[index * 2]) }
    }
}

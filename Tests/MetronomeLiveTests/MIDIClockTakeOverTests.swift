import MetronomeEngine
import MetronomeLive
import MetronomeModel
import MetronomeTestSupport
import Testing

/// `metronome serve` through JACK listens to a MIDI clock from the start and plays its own tempo until
/// `/metronome/follow midi-clock` makes the clock lead (`MIDIClockFollower.leads`): from then on every click is on one
/// of the clock's beats. Rendered offline, to the frame, with the lead taken at many places of the clock's beat and
/// passes of several lengths.
@Suite("MIDI clock: the lead taken while the clock plays")
struct MIDIClockTakeOverTests {
    /// A clock at 100 BPM: a tick every 1 200 frames, a beat every 28 800; its first tick (song tick 0) on 24 000
    /// unless a test moves it.
    static let clockBeat: Int64 = 28_800

    /// Our own steady `tempo` from frame 0; the clock's Start at frame 0 and its ticks from `firstTick`. Each message
    /// reaches the follower only once the render has passed its frame, as an output's input does; the lead is taken
    /// once the render reaches `at`.
    /// - Returns: the onsets, by frame and height (the accent 0.8, a beat 0.6).
    static func render(
        ourTempo tempo: Double, firstTick: Int64 = 24_000, leadAt at: SampleTime, blockFrames: Int, frames: SampleTime
    ) throws -> [(frame: Int64, value: Float)] {
        let session = try Session(
            map: TempoMap.steady(tempo: BPM(tempo)), clicks: Impulses.clickSet(),
            configuration: try MixerConfiguration(channels: 1), endFrame: nil)
        let clock = MIDIClockFollower(inbox: MIDIInbox(capacity: 4096), framesPerSecond: 48_000, leads: false)
        session.add(follower: clock)
        var messages: [(frame: SampleTime, message: MIDIMessage)] = [(0, MIDIMessage(0xFA))]
        for tick in 0..<Int(frames / 1_200) {
            messages.append((SampleTime(firstTick) + SampleTime(tick * 1_200), MIDIMessage(0xF8)))
        }
        var waiting = messages[...]
        let sink = OnsetSink(channels: 1)
        try session.render(frameCount: frames, to: sink, blockFrames: blockFrames) { done in
            while let next = waiting.first, next.frame < done {
                _ = clock.inbox.push(next.message, at: next.frame)
                waiting.removeFirst()
            }
            if done >= at, !clock.leads { clock.leads = true }
            return true
        }
        return sink.onsets
    }

    /// What is wrong with a render whose lead was taken at `at` (nil: nothing), our own beat `ourBeat` frames.
    ///
    /// The pass that takes the lead is the first whose render starts at or after `at` (within a block of it); it has
    /// scheduled a block on, and the song's place is taken on the tick after the next not yet scheduled: within two
    /// ticks, what was scheduled plays as it was, and our own beats may still sound there. So, from the first frame
    /// not yet scheduled (`at` plus a block): every click on one of the clock's beats, or on one of ours before
    /// two blocks and two ticks on; from there, every beat of the clock, each accent on its bar line (every fourth
    /// beat from song tick 0), none between.
    static func wrong(
        _ onsets: [(frame: Int64, value: Float)], ourBeat: Int64, firstTick: Int64 = 24_000, leadAt at: SampleTime,
        blockFrames: Int, frames: SampleTime
    ) -> String? {
        let block = SampleTime(blockFrames)
        let onClock = { (frame: Int64) in frame >= firstTick && (frame - firstTick) % clockBeat == 0 }
        let from = at + 2 * block + 2_400
        let stray = onsets.filter { onset in
            onset.frame >= at + block && !onClock(onset.frame) && !(onset.frame < from && onset.frame % ourBeat == 0)
        }
        let after = onsets.filter { $0.frame >= from }
        let beats = (0...).lazy.map { firstTick + Int64($0) * clockBeat }.filter { $0 >= from }
        let due = Array(beats.prefix { $0 < frames - 2_000 })
        let accents = due.map { ($0 - firstTick) / clockBeat % 4 == 0 ? Float(0.8) : 0.6 }
        guard
            !stray.isEmpty || Array(after.prefix(due.count).map(\.frame)) != due
                || Array(after.prefix(due.count).map(\.value)) != accents
        else { return nil }
        let heard = onsets.filter { $0.frame >= at - 30_000 }.map { "\($0.frame) \($0.value)" }
        return "lead at \(at), first tick \(firstTick), blocks of \(blockFrames): clicks \(heard)"
    }

    @Test(
        "Ours at 120 BPM, made to lead at 62 places across a beat of ours (at 120000) and the clock's, with passes of 256, 512 and 1024 frames: from the first frame not yet scheduled, every click on one of the clock's beats or ours of before the switch, and from two ticks on every beat of the clock, the accents on its bar lines"
    )
    func everyClickOnTheClockAfterTheSwitch() throws {
        var wrong: [String] = []
        var runs = 0
        for blockFrames in [256, 512, 1024] {
            for at in stride(from: SampleTime(105_000), to: 129_000, by: 389) {
                runs += 1
                let frames = at + 240_000
                let onsets = try Self.render(ourTempo: 120, leadAt: at, blockFrames: blockFrames, frames: frames)
                if let what = Self.wrong(onsets, ourBeat: 24_000, leadAt: at, blockFrames: blockFrames, frames: frames)
                {
                    wrong.append(what)
                }
            }
        }
        #expect(wrong.isEmpty, "\(wrong.count) of \(runs): \(wrong.prefix(6).joined(separator: "; "))")
    }

    /// Ours faster than the clock: a tick of our map (600 frames) is shorter than a pass of 1024 or 2048 frames, so
    /// the pass that applies the seek can also schedule the next beat, when the song's place is a tick or two before
    /// one. The clock's phase against the passes moves in steps of 128 frames across a pass of 2048; the lead is
    /// taken every 600 frames from two ticks and two passes before its 71st tick (a tick before a beat) to a tick
    /// after. Without the clock's tempo sent with the seek, 39 of these 368 renders put that beat at our tempo.
    @Test(
        "Ours at 200 BPM, faster than the clock, made to lead where the song's place is a tick before its beat, at 16 phases of the clock against passes of 1024 and 2048 frames: the beat after the song's place is on the clock too"
    )
    func theBeatAfterTheSeekOnTheClock() throws {
        var wrong: [String] = []
        var runs = 0
        for blockFrames in [1024, 2048] {
            for firstTick in stride(from: Int64(24_000), to: 24_000 + 2_048, by: 128) {
                let beforeBeat = firstTick + 71 * 1_200
                let earliest = beforeBeat - 2_400 - 2 * SampleTime(blockFrames)
                for at in stride(from: earliest, to: beforeBeat + 1_200, by: 600) {
                    runs += 1
                    let frames = at + 100_000
                    let onsets = try Self.render(
                        ourTempo: 200, firstTick: firstTick, leadAt: at, blockFrames: blockFrames, frames: frames)
                    if let what = Self.wrong(
                        onsets, ourBeat: 14_400, firstTick: firstTick, leadAt: at, blockFrames: blockFrames,
                        frames: frames)
                    {
                        wrong.append(what)
                    }
                }
            }
        }
        #expect(wrong.isEmpty, "\(wrong.count) of \(runs): \(wrong.prefix(4).joined(separator: "; "))")
    }
}

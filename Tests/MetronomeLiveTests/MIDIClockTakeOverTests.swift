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
    /// Our own 120 BPM (24 000 frames a beat); a clock at 100 BPM (a tick every 1 200 frames, a beat every 28 800),
    /// its Start at frame 0 and its first tick (song tick 0) on 24 000. Each message reaches the follower only once
    /// the render has passed its frame, as an output's input does; the lead is taken once the render reaches `at`.
    /// - Returns: the onsets, by frame and height (the accent 0.8, a beat 0.6).
    static func render(leadAt at: SampleTime, blockFrames: Int, frames: SampleTime) throws -> [(
        frame: Int64, value: Float
    )] {
        let session = try Session(
            map: TempoMap.steady(tempo: BPM(120)), clicks: Impulses.clickSet(),
            configuration: try MixerConfiguration(channels: 1), endFrame: nil)
        let clock = MIDIClockFollower(inbox: MIDIInbox(capacity: 4096), framesPerSecond: 48_000, leads: false)
        session.add(follower: clock)
        var messages: [(frame: SampleTime, message: MIDIMessage)] = [(0, MIDIMessage(0xFA))]
        for tick in 0..<Int(frames / 1_200) { messages.append((SampleTime(24_000 + tick * 1_200), MIDIMessage(0xF8))) }
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

    @Test(
        "Made to lead at 62 places across a beat of ours (at 120000) and the clock's, with passes of 256, 512 and 1024 frames: from two ticks past the first frame not yet scheduled, every click on one of its beats to the frame, none between, the accents on its bar lines"
    )
    func everyClickOnTheClockAfterTheSwitch() throws {
        var wrong: [String] = []
        var runs = 0
        for blockFrames in [256, 512, 1024] {
            for at in stride(from: SampleTime(105_000), to: 129_000, by: 389) {
                runs += 1
                let onsets = try Self.render(leadAt: at, blockFrames: blockFrames, frames: at + 240_000)
                // From the first frame not yet scheduled when the lead was taken (a pass schedules two blocks on)
                // and two ticks on: the song's place is taken on the tick after the next, and what was scheduled
                // before it plays as it was.
                let from = at + 2 * SampleTime(blockFrames) + 2_400
                let after = onsets.filter { $0.frame >= from }
                let beats = (0...).lazy.map { Int64(24_000 + $0 * 28_800) }.filter { $0 >= from }
                let due = Array(beats.prefix { $0 < at + 240_000 - 2_000 })
                // The song's place is taken with the lead: each accent on the clock's bar line (every fourth beat
                // from song tick 0), every other beat plain.
                let accents = due.map { ($0 - 24_000) / 28_800 % 4 == 0 ? Float(0.8) : 0.6 }
                if after.contains(where: { ($0.frame - 24_000) % 28_800 != 0 })
                    || Array(after.prefix(due.count).map(\.frame)) != due
                    || Array(after.prefix(due.count).map(\.value)) != accents
                {
                    let heard = onsets.filter { $0.frame >= at - 30_000 }.map { "\($0.frame) \($0.value)" }
                    wrong.append("lead at \(at), blocks of \(blockFrames): clicks \(heard)")
                }
            }
        }
        #expect(wrong.isEmpty, "\(wrong.count) of \(runs): \(wrong.prefix(6).joined(separator: "; "))")
    }
}

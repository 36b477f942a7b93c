import MetronomeEngine
import MetronomeModel
import MetronomeMusic
import MetronomeTestSupport
import Testing

/// The drills on the scheduler itself, driven by hand: a random mute keeps the beats (marked) and MIDI clock but
/// pushes no click sound and no click note; a practice timer's end replaces the downbeat's click with its chime and
/// becomes the end frame, wherever a tempo change moved that downbeat.
@Suite("Practice drills on the scheduler")
struct PracticeSchedulerTests {
    /// Drives `scheduler` to `end` in steps of 700 frames; returns the commands pushed and the beats collected.
    static func run(_ scheduler: Scheduler, to end: SampleTime, at changes: [SampleTime: (Scheduler) -> Void] = [:])
        -> (
            commands: [(kind: MixerCommand.Kind, frame: SampleTime, frames: Int, midi: MIDIMessage?)],
            beats: [ClickEvent]
        )
    {
        scheduler.collectsBeats = true
        scheduler.send(.play, at: .frame(0))
        var horizon: SampleTime = 0
        var commands: [(kind: MixerCommand.Kind, frame: SampleTime, frames: Int, midi: MIDIMessage?)] = []
        var beats: [ClickEvent] = []
        while horizon < end {
            if let change = changes[horizon] { change(scheduler) }
            horizon += 700
            scheduler.schedule(until: horizon)
            while let command = scheduler.ring.peek() {
                commands.append(
                    (command.kind, command.frame, command.sample.frameCount, command.kind == .midi ? command.midi : nil)
                )
                scheduler.ring.removeFirst()
            }
            beats += scheduler.takeBeats(upTo: .max)
        }
        return (commands, beats)
    }

    @Test(
        "Random mute 50%, seed 5, at 240 BPM: bars 2, 3, 4, 5 and 8 push no click and no click note, their beats are collected marked muted, MIDI clock runs through them"
    )
    func muteOnTheScheduler() throws {
        let map = try TempoMap.steady(tempo: .of(240))
        let scheduler = Scheduler(map: map, clicks: Impulses.clickSet(), ring: CommandRing(minimumCapacity: 8192))
        scheduler.randomMute = RandomMute(probability: 0.5, seed: 5)
        scheduler.midiClickNotes = { _ in (76, 127) }
        scheduler.sendsMIDIClock = true
        // A bar is 48000 frames; 10 bars.
        let (all, allBeats) = Self.run(scheduler, to: 480_000)
        let commands = all.filter { $0.frame < 480_000 }
        let beats = allBeats.filter { $0.frame < 480_000 }
        let mutedBars = [2, 3, 4, 5, 8]
        #expect((0..<10).filter { scheduler.randomMute!.mutes(bar: $0, firstBar: 0) } == mutedBars)
        #expect(beats.count == 40)
        let mutedBeats = mutedBars.flatMap { (bar: Int) -> [Int] in Array(repeating: bar, count: 4) }
        #expect(beats.filter(\.isMuted).map(\.bar) == mutedBeats)
        let sounded = commands.filter { $0.kind == .startVoice }.map(\.frame)
        let expected = (0..<10).filter { !mutedBars.contains($0) }.flatMap { (bar: Int) -> [Int] in
            (0..<4).map { (beat: Int) -> Int in bar * 48_000 + beat * 12_000 }
        }
        let expectedFrames = expected.map { (frame: Int) -> SampleTime in SampleTime(frame) }
        #expect(sounded == expectedFrames)
        let notes = commands.filter { $0.midi?.status == 0x99 }.map(\.frame)
        #expect(notes == sounded)
        let clocks = commands.filter { $0.midi == .clock }.map(\.frame)
        #expect(clocks.count == 10 * 4 * 24)
        #expect(clocks[2 * 96] == 96_000)
    }

    @Test(
        "A 3 s practice at 120 BPM sped up to 150 from bar 2: the chime on bar 3's downbeat, 172800 (the first at or after 144000; 192000 without the change), nothing after it, the end frame moved there"
    )
    func practiceEndFollowsTheTempo() throws {
        let map = try TempoMap.steady(tempo: .of(120))
        let scheduler = Scheduler(map: map, clicks: Impulses.clickSet(), ring: CommandRing(minimumCapacity: 8192))
        let chime = ClickSynthesizer.practiceEndSound(sampleRate: .standard)
        scheduler.practice = PracticeTimer(duration: 144_000, sound: chime)
        // At 150 BPM from bar 2 (frame 96000) a bar is 76800 frames: bar 3 starts at 172800, the first downbeat at or
        // after 144000. Unchanged it would have been 192000.
        let (commands, _) = Self.run(
            scheduler, to: 300_000,
            at: [4200: { $0.send(.setTempo(.of(150)), at: .nextBar) }])
        let starts = commands.filter { $0.kind == .startVoice }
        let clicks = starts.filter { $0.frames != chime.frameCount }.map(\.frame)
        #expect(clicks == [0, 24_000, 48_000, 72_000, 96_000, 115_200, 134_400, 153_600])
        #expect(starts.last.map { $0.frame == 172_800 && $0.frames == chime.frameCount } == true)
        #expect(scheduler.endFrame == 172_800)
        #expect(scheduler.practice?.startFrame == 0)
        #expect(scheduler.practice?.deadline == 144_000)
        #expect(scheduler.practice?.ringsOutAt == 172_800 + SampleTime(chime.frameCount))
        #expect(PracticeTimer.endFrame(on: map, duration: 144_000) == 192_000)
    }
}

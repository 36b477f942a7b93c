import CAllocationCounter
import MetronomeEngine
import MetronomeModel
import MetronomeMusic
import MetronomeSoundFont
import MetronomeTestSupport
import Testing

/// A font of one zone that sounds only from velocity 64 up (a layer), for a keyboard's velocity table.
private final class LayeredFont: SoundFontZoneSource, @unchecked Sendable {
    // @unchecked: `zone` is immutable after init and only read.
    let zone: TestZone

    init(_ zone: TestZone) { self.zone = zone }

    func voiceZones(bank: Int, program: Int, key: Int, velocity: Int) -> [UnsafePointer<SoundFontVoiceZone>] {
        velocity >= 64 ? [UnsafePointer(zone.zone)] : []
    }
}

@Suite("A keyboard played on the render thread: notes on the frame they arrive")
struct LiveKeyboardTests {
    /// A bank of one zone: a single sample of 0.5 then silence, played at its own rate on every key but one octave.
    static func impulseTrack(loop: Bool = false) throws -> NotePlayer.Track {
        let samples: [Float] = loop ? [Float](repeating: 0.5, count: 64) : [0.5] + [Float](repeating: 0, count: 63)
        let zone = try BankZone(
            sample: SampleBuffer(channels: [samples], name: "impulse"), sampleRate: 48_000, lowNote: 0, highNote: 127,
            rootNote: 60, loop: loop ? 0..<64 : nil, release: 0)
        return NotePlayer.Track(bank: SoundBank(name: "impulse", summary: "one frame", zones: [zone]), pan: 0)
    }

    /// Renders `frames` of `mixer` and returns the left channel.
    static func render(_ mixer: Mixer, frames: Int) -> [Float] {
        var output = [Float](repeating: 0, count: frames * 2)
        output.withUnsafeMutableBufferPointer { mixer.render(into: $0.baseAddress!, frameCount: frames) }
        return stride(from: 0, to: output.count, by: 2).map { output[$0] }
    }

    static func nonZero(_ samples: [Float]) -> [Int] { samples.indices.filter { samples[$0] != 0 } }

    @Test("A note on plays on its own frame in the render that follows, in frame order with the ring's commands around it, at the gain of a live note of one (velocity² × the zone's gain × the track's)")
    func noteOnItsFrame() throws {
        let ring = CommandRing(minimumCapacity: 64)
        let mixer = Mixer(configuration: try MixerConfiguration(), commands: ring)
        _ = Self.render(mixer, frames: 1000)
        let keyboard = LiveKeyboard(track: try Self.impulseTrack(), sampleRate: .standard)
        let click = SampleBuffer(channels: [[0.25]], name: "click")
        ring.push(.start(click.reference, at: 1010, gain: 1, pan: 0))
        ring.push(.start(click.reference, at: 1050, gain: 1, pan: 0))
        keyboard.play(MIDIMessage(0x90, 60, 100), at: 1037, into: mixer)
        // A later key in the same period: after the ring's last.
        keyboard.play(MIDIMessage(0x90, 60, 127), at: 1300, into: mixer)
        let left = Self.render(mixer, frames: 512)
        let onsets = left.indices.filter { left[$0] != 0 && ($0 == 0 || left[$0 - 1] == 0) }
        #expect(onsets == [10, 37, 50, 300], "\(Self.nonZero(left))")
        // The same voices pushed through the ring as a scheduler would: the same frames, bit for bit.
        let reference = Mixer(configuration: try MixerConfiguration(), commands: CommandRing(minimumCapacity: 64))
        _ = Self.render(reference, frames: 1000)
        let zone = try #require(Self.impulseTrack().bank).zone(for: 60)
        reference.commands.push(.start(click.reference, at: 1010, gain: 1, pan: 0))
        for (frame, velocity) in [(1037, 100), (1300, 127)] {
            reference.commands.push(
                .startNote(
                    zone.sample.reference, at: SampleTime(frame), gain: NoteEvent.gain(velocity: velocity), pan: 0,
                    rate: 1, tag: LiveKeyboard.tag(forKey: 60), loop: nil, releaseFrames: 1))
            if frame == 1037 { reference.commands.push(.start(click.reference, at: 1050, gain: 1, pan: 0)) }
        }
        #expect(Self.render(reference, frames: 512) == left)
        #expect(mixer.lateEventCount == 0)
    }

    @Test("Merged with the ring block by block (blocks of 256 frames): the MIDI the mixer hands out is in frame order across both, the ring's first on a tie; a note off and a note on of one key on one frame leave the new note sounding")
    func mergedInFrameOrder() throws {
        let ring = CommandRing(minimumCapacity: 64)
        let mixer = Mixer(configuration: try MixerConfiguration(maximumBlockFrames: 256), commands: ring)
        let keyboard = LiveKeyboard(track: try Self.impulseTrack(loop: true), sampleRate: .standard, echoesMIDI: true)
        for frame in [100, 300, 400, 700] { ring.push(.midi(.clock, at: SampleTime(frame))) }
        keyboard.play(MIDIMessage(0x90, 60, 100), at: 50, into: mixer)
        keyboard.play(MIDIMessage(0x90, 61, 100), at: 300, into: mixer)
        keyboard.play(MIDIMessage(0x80, 61, 64), at: 600, into: mixer)
        keyboard.play(MIDIMessage(0x90, 61, 100), at: 600, into: mixer)
        var frames: [SampleTime] = []
        var messages: [MIDIMessage] = []
        var output = [Float](repeating: 0, count: 256 * 2)
        var last: [Float] = []
        for _ in 0..<4 {
            output.withUnsafeMutableBufferPointer { mixer.render(into: $0.baseAddress!, frameCount: 256) }
            for index in 0..<mixer.midiOut.count {
                frames.append(mixer.midiOut[index].frame)
                messages.append(mixer.midiOut[index].message)
            }
            last = output
        }
        #expect(frames == [50, 100, 300, 300, 400, 600, 600, 700])
        #expect(
            messages == [
                .noteOn(channel: 0, key: 60, velocity: 100), .clock, .clock, .noteOn(channel: 0, key: 61, velocity: 100),
                .clock, .noteOff(channel: 0, key: 61), .noteOn(channel: 0, key: 61, velocity: 100), .clock,
            ])
        // Both looped keys still sound at the end (61's new note was started after its release).
        #expect(mixer.activeVoiceCount == 2 && last.last != 0)
        #expect(mixer.lateEventCount == 0)
    }

    @Test("Past the mixer's room for one period (Mixer.immediateCapacity commands) a command is dropped and counted, never played late")
    func droppedWhenFull() throws {
        let mixer = Mixer(configuration: try MixerConfiguration(), commands: CommandRing(minimumCapacity: 64))
        let keyboard = LiveKeyboard(track: try Self.impulseTrack(), sampleRate: .standard)
        for index in 0..<(Mixer.immediateCapacity + 3) {
            keyboard.play(MIDIMessage(0x90, UInt8(index % 128), 100), at: SampleTime(index % 500), into: mixer)
        }
        #expect(keyboard.droppedCount == 3)
        _ = Self.render(mixer, frames: 1024)
        #expect(mixer.lateEventCount == 0)
    }

    @Test("A note off releases every voice of its key on its frame; a key never pressed releases nothing and sends nothing")
    func noteOffReleasesTheKey() throws {
        let mixer = Mixer(configuration: try MixerConfiguration(), commands: CommandRing(minimumCapacity: 64))
        let keyboard = LiveKeyboard(track: try Self.impulseTrack(loop: true), sampleRate: .standard, echoesMIDI: true)
        keyboard.play(MIDIMessage(0x90, 62, 127), at: 10, into: mixer)
        keyboard.play(MIDIMessage(0x90, 62, 127), at: 20, into: mixer)
        keyboard.play(MIDIMessage(0x80, 62, 64), at: 200, into: mixer)
        keyboard.play(MIDIMessage(0x80, 70, 64), at: 210, into: mixer)
        let left = Self.render(mixer, frames: 512)
        // Both voices of key 62 sound from their frames until the release (release time 0: one frame to silence).
        #expect(left[9] == 0 && left[10] != 0 && left[199] != 0)
        #expect(left[201...].allSatisfy { $0 == 0 }, "\(Self.nonZero(left).suffix(3))")
        #expect((0..<mixer.midiOut.count).map { mixer.midiOut[$0].frame } == [10, 20, 200])
        #expect(
            (0..<mixer.midiOut.count).map { mixer.midiOut[$0].message }
                == [.noteOn(channel: 0, key: 62, velocity: 127), .noteOn(channel: 0, key: 62, velocity: 127),
                    .noteOff(channel: 0, key: 62)])
    }

    @Test("While the output holds the mixer still (a stopped transport) a note on is not played and is counted; a key let go meanwhile is released on the first frame rendered again")
    func heldMixer() throws {
        let mixer = Mixer(configuration: try MixerConfiguration(), commands: CommandRing(minimumCapacity: 64))
        let keyboard = LiveKeyboard(track: try Self.impulseTrack(loop: true), sampleRate: .standard)
        keyboard.play(MIDIMessage(0x90, 60, 100), at: 0, into: mixer)
        var left = Self.render(mixer, frames: 256)
        #expect(left[255] != 0)
        keyboard.play(MIDIMessage(0x80, 60, 0), at: 256, into: mixer, mixerHeld: true)
        keyboard.play(MIDIMessage(0x90, 64, 100), at: 256, into: mixer, mixerHeld: true)
        #expect(keyboard.ignoredCount == 1)
        keyboard.releaseHeld(into: mixer)
        left = Self.render(mixer, frames: 256)
        #expect(left[0] != 0 && left[1...].allSatisfy { $0 == 0 }, "\(Self.nonZero(left).prefix(3))")
        #expect(mixer.lateEventCount == 0)
    }

    @Test("A SoundFont track: the zones the font gives the key at the note's velocity (none below its layer), on the note's frame")
    func fontVelocityLayers() throws {
        let zone = TestZone(samples: [Int16](repeating: 8000, count: 4000))
        let font = LayeredFont(zone)
        let mixer = Mixer(configuration: try MixerConfiguration(), commands: CommandRing(minimumCapacity: 64))
        let keyboard = LiveKeyboard(
            track: NotePlayer.Track(font: FontInstrument(font: font, channel: 16)), sampleRate: .standard)
        keyboard.play(MIDIMessage(0x90, 60, 40), at: 5, into: mixer)
        keyboard.play(MIDIMessage(0x90, 61, 90), at: 77, into: mixer)
        let left = Self.render(mixer, frames: 256)
        #expect(Self.nonZero(left).first == 77)
        #expect(mixer.activeVoiceCount == 1)
    }

    @Test("Played into the mixer and rendered, the keyboard allocates nothing: bank and SoundFont notes, releases, echoes", .countsAllocations)
    func allocatesNothing() throws {
        let zone = TestZone(samples: [Int16](repeating: 8000, count: 4000))
        let font = LayeredFont(zone)
        let mixer = Mixer(configuration: try MixerConfiguration(), commands: CommandRing(minimumCapacity: 64))
        let bank = LiveKeyboard(track: try Self.impulseTrack(loop: true), sampleRate: .standard, echoesMIDI: true)
        let fonts = LiveKeyboard(
            track: NotePlayer.Track(font: FontInstrument(font: font, channel: 16)), sampleRate: .standard,
            echoesMIDI: true)
        var output = [Float](repeating: 0, count: 256 * 2)
        output.withUnsafeMutableBufferPointer { mixer.render(into: $0.baseAddress!, frameCount: 256) }
        var allocations: UInt64 = 0
        output.withUnsafeMutableBufferPointer { buffer in
            for period in 1...200 {
                let start = SampleTime(period * 256)
                let before = metronome_thread_allocation_count()
                let key = UInt8(40 + period % 40)
                bank.play(MIDIMessage(0x90, key, 100), at: start + 3, into: mixer)
                fonts.play(MIDIMessage(0x90, key, 100), at: start + 9, into: mixer)
                bank.play(MIDIMessage(0x80, key &- 1, 0), at: start + 100, into: mixer, mixerHeld: period % 7 == 0)
                fonts.play(MIDIMessage(0x80, key &- 1, 0), at: start + 120, into: mixer)
                bank.releaseHeld(into: mixer)
                mixer.render(into: buffer.baseAddress!, frameCount: 256)
                allocations += metronome_thread_allocation_count() - before
            }
        }
        #expect(mixer.lateEventCount == 0)
        #expect(bank.droppedCount == 0 && fonts.droppedCount == 0)
        #expect(allocations == 0)
    }
}

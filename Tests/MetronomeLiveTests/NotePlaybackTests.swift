import Foundation
import MetronomeEngine
import MetronomeLive
import MetronomeModel
import MetronomeMusic
import MetronomeTestSupport
import Testing

/// Renders notes (and no clicks) for `frames` frames, mono.
func renderNotes(
    _ source: any NoteSource, instrument: InstrumentSynthesizer.Instrument = .piano, frames: Int64, pan: Float? = 0
) throws -> [Float] {
    let map = try TempoMap.steady(
        tempo: BPM(120), accents: AccentPattern(levels: [.silent, .silent, .silent, .silent]))
    let configuration = try MixerConfiguration(channels: 1, voiceCapacity: 64)
    let player = NotePlayer(
        tracks: [.init(bank: SharedBanks.bank(instrument), pan: pan)],
        source: source, sampleRate: .standard)
    let renderer = try Session(
        map: map, clicks: Impulses.clickSet(), configuration: configuration, endFrame: SampleTime(frames),
        players: [player])
    let sink = BufferSink(channels: 1)
    try renderer.render(frameCount: frames, to: sink)
    return sink.samples
}

/// The frequency of the strongest component within ±`range` cents of `expected`, by a Hann-windowed DFT evaluated
/// every 0.05 cent: precise for a steady or decaying partial.
func measuredCents(_ samples: ArraySlice<Float>, expected: Double, rate: Double = 48000, range: Double = 10) -> Double {
    let values = Array(samples)
    let count = values.count
    let window = (0..<count).map { 0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(count - 1)) }
    var best = (cents: 0.0, power: -1.0)
    var cents = -range
    while cents <= range {
        let frequency = expected * pow(2, cents / 1200)
        let step = 2 * Double.pi * frequency / rate
        var re = 0.0
        var im = 0.0
        for index in 0..<count {
            let value = Double(values[index]) * window[index]
            re += value * cos(step * Double(index))
            im -= value * sin(step * Double(index))
        }
        let power = re * re + im * im
        if power > best.power { best = (cents, power) }
        cents += 0.05
    }
    return best.cents
}

@Suite("Notes: arpeggios, pitch, chords and headroom")
struct NotePlaybackTests {
    @Test("An endless arpeggio stops at the scheduler's end frame: 1 s at 120 BPM is 8 sixteenths")
    func endlessArpeggioStopsAtEnd() throws {
        let map = try TempoMap.steady(tempo: BPM(120))
        let configuration = try MixerConfiguration(channels: 1)
        let player = NotePlayer(
            tracks: [.init(bank: SharedBanks.organ)],
            source: ArpeggioSequence(chords: [try ChordSymbol(parsing: "C")], settings: ArpeggioSettings(), map: map),
            sampleRate: .standard)
        let renderer = try Session(
            map: map, clicks: Impulses.clickSet(), configuration: configuration, endFrame: 48000, players: [player])
        try renderer.render(frameCount: 60000, to: BufferSink(channels: 1))
        #expect(player.startedNotes == 8)
        #expect(player.isFinished)
    }

    @Test(
        "A rendered note's fundamental lies within 1 cent of its target",
        arguments: [
            (InstrumentSynthesizer.Instrument.piano, 45), (.piano, 69), (.piano, 80), (.piano, 100), (.organ, 50),
            (.organ, 69), (.organ, 93),
        ])
    func pitch(instrument: InstrumentSynthesizer.Instrument, note: Int) throws {
        let source = NoteBatches([[NoteEvent(frame: 0, offFrame: 48000, note: note, velocity: 127)]])
        let samples = try renderNotes(source, instrument: instrument, frames: 48000)
        let expected = 440 * pow(2, Double(note - 69) / 12)
        let cents = measuredCents(samples[2400..<26400], expected: expected)
        #expect(abs(cents) < 1, "measured \(cents) cents")
    }

    @Test("A note sounds from its frame and is silent once its release has run out")
    func gateAndRelease() throws {
        let source = NoteBatches([[NoteEvent(frame: 1000, offFrame: 13000, note: 60, velocity: 127)]])
        let samples = try renderNotes(source, instrument: .organ, frames: 30000)
        #expect(samples[..<1000].allSatisfy { $0 == 0 })
        // The organ's release is 0.08 s: 3840 frames from the note-off.
        let lastSounding = samples.lastIndex { $0 != 0 }!
        #expect(lastSounding == 13000 + 3840 - 1)
        #expect(samples[1001..<13000].contains { abs($0) > 0.1 })
    }

    @Test("Chords of 1 to 16 notes at full velocity never reach ±1.0", arguments: 1...16)
    func noClipping(size: Int) throws {
        let notes = (0..<size).map { 48 + 2 * $0 }
        let batch = notes.map { NoteEvent(frame: 0, offFrame: 40000, note: $0, velocity: 127, chordSize: size) }
        let samples = try renderNotes(NoteBatches([batch]), frames: 48000)
        #expect(samples.allSatisfy { abs($0) < 1 })
        #expect(samples.map(abs).max()! > 0.2)
    }

    @Test("A 3-note chord is each note at 1/√3, summed untouched: the limiter never turns it down")
    func smallChordLevel() throws {
        let notes = [60, 64, 67]
        let chord = notes.map { NoteEvent(frame: 0, offFrame: 40000, note: $0, velocity: 127, chordSize: 3) }
        let together = try renderNotes(NoteBatches([chord]), frames: 48000)
        var sum = [Float](repeating: 0, count: 48000)
        for note in notes {
            let alone = try renderNotes(
                NoteBatches([[NoteEvent(frame: 0, offFrame: 40000, note: note, velocity: 127, chordSize: 3)]]),
                frames: 48000)
            for index in sum.indices { sum[index] += alone[index] }
        }
        let difference = zip(together, sum).map { abs($0 - $1) }.max()!
        #expect(difference < 1e-6)
        #expect(NoteEvent.chordScale(size: 3) == 1 / Float(3).squareRoot())
        #expect(together.map(abs).max()! > 0.4)
    }

    @Test("A committed chord starts every note on its frame, even across a block boundary")
    func chordOnOneFrame() throws {
        let batch = [60, 64, 67, 71].map {
            NoteEvent(frame: 4095, offFrame: 20000, note: $0, velocity: 100, chordSize: 4)
        }
        let samples = try renderNotes(NoteBatches([batch]), instrument: .piano, frames: 12000)
        // The piano's attack starts from zero: the first sounding frame is the one after the onset.
        #expect(samples.firstIndex { $0 != 0 } == 4096)
    }
}

@Suite("Live notes from any thread")
struct LiveNoteQueueTests {
    @Test("noteOn/noteOff queued and committed: the chord starts on its frame, each release on its own frame")
    func queueCommits() throws {
        let map = try TempoMap.steady(
            tempo: BPM(120), accents: AccentPattern(levels: [.silent, .silent, .silent, .silent]))
        let configuration = try MixerConfiguration(channels: 1, voiceCapacity: 64)
        let player = NotePlayer(
            tracks: [.init(bank: SharedBanks.organ, pan: 0)],
            source: NoteBatches([]), sampleRate: .standard)
        let renderer = try Session(
            map: map, clicks: Impulses.clickSet(), configuration: configuration, endFrame: 40000, players: [player])
        // Queued from another thread before playing: a three-note chord on frame 1000, released at 10000 and 20000.
        let queue = player.queue
        let done = DispatchGroup()
        done.enter()
        let worker = Thread {
            defer { done.leave() }
            queue.noteOn(60, velocity: 127, at: 1000)
            queue.noteOn(64, velocity: 127, at: 1000)
            queue.noteOn(67, velocity: 127, at: 1000)
            queue.noteOff(60, at: 10000)
            queue.noteOff(64, at: 10000)
            queue.commit()
            queue.noteOff(67, at: 20000)
            queue.commit()
        }
        worker.start()
        done.wait()
        let sink = BufferSink(channels: 1)
        try renderer.render(frameCount: 40000, to: sink)
        let samples = sink.samples
        #expect(player.startedNotes == 3)
        #expect(samples[..<1001].allSatisfy { $0 == 0 })
        #expect(samples[1001] != 0)
        // G4 alone after the others' 3840-frame release; silent after its own.
        #expect(samples.lastIndex { $0 != 0 } == 20000 + 3840 - 1)
        #expect(renderer.mixer.lateEventCount == 0)
    }
}

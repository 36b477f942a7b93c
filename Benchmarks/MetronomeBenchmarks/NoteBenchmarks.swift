import Glibc
import MetronomeKit
import MetronomePulse

/// Dense live notes: every 1/32 at 300 BPM (25 ms) an 8-note chord is committed and held for 8 steps, so 64 notes
/// sound at once, into a private PulseAudio daemon through the same engine `metronome arp` uses.
enum NoteBenchmarks {
    struct Report {
        var seconds: Int
        var chords: Int
        var peakVoices: Int
        var late: Int
        var underruns: Int
        var cpuPercent: Double
        var splitChords: Int
        var offlineChords: Int
    }

    /// 8-note chords every 1/32 step at 300 BPM, each held 8 steps.
    struct ChordStream: NoteSource {
        let map: TempoMap
        var step = 0
        mutating func seek(to position: Position, on map: TempoMap) { step = 0 }
        mutating func nextBatch() -> [NoteEvent]? {
            // A 1/32 is 1/8 of a quarter-note beat: 12 parts of 96.
            guard let onset = map.exactFrame(bar: step / 32, beat: Int64(step % 32) * 12, parts: 96),
                let off = map.exactFrame(bar: (step + 8) / 32, beat: Int64((step + 8) % 32) * 12, parts: 96)
            else { return nil }
            let root = 36 + (step * 5) % 36
            let notes = (0..<8).map { root + [0, 4, 7, 11, 12, 16, 19, 23][$0] }
            step += 1
            let frame = SampleTime(onset.rounded())
            return notes.map {
                NoteEvent(frame: frame, offFrame: SampleTime(off.rounded()), note: $0, velocity: 90, chordSize: 8)
            }
        }
    }

    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    static func run(scratch: String, seconds: Int) throws -> Report? {
        guard let server = PrivateServer(directory: scratch + "/pulse-notes") else { return nil }
        defer { server.stop() }
        let map = try TempoMap.steady(
            tempo: BPM(300), accents: AccentPattern(levels: [.silent, .silent, .silent, .silent]))
        let rate = SampleRate.standard
        let configuration = try MixerConfiguration(voiceCapacity: 128)
        let player = NotePlayer(
            tracks: [.init(bank: InstrumentSynthesizer.bank(.organ, sampleRate: rate))],
            source: ChordStream(map: map), sampleRate: rate)
        let engine = try Session(
            map: map, clicks: ClickSynthesizer.clickSet(.wood, sampleRate: rate), configuration: configuration,
            endFrame: rate.frame(at: Double(seconds)), players: [player])
        engine.start(output: nil)
        let output = try PulseOutput(
            mixer: engine.mixer, server: "unix:\(server.directory)/native", latency: .milliseconds(20))
        engine.attach(output: output)
        let cpuStart = cpuSeconds()
        let wallStart = Measure.now()
        var peak = 0
        while !engine.isFinished {
            peak = max(peak, engine.mixer.activeVoiceCount)
            usleep(10_000)
        }
        let cpu = cpuSeconds() - cpuStart
        let wall = Measure.now() - wallStart
        engine.stop()
        output.drain()
        output.close()

        // Offline: the same stream rendered in 256-frame blocks; a chord whose notes did not all start in the
        // block of its frame would show as late events or as a voice count that grows by less than 8.
        let ring = CommandRing(minimumCapacity: 8192)
        let mixer = Mixer(configuration: configuration, commands: ring)
        var stream = ChordStream(map: map)
        var split = 0
        var chords = 0
        var buffer = [Float](repeating: 0, count: 512)
        while chords < 1000, let batch = stream.nextBatch() {
            let frame = batch[0].frame
            let player = NotePlayer(
                tracks: [.init(bank: InstrumentSynthesizer.bank(.organ, sampleRate: rate))],
                source: NoteBatches([batch]), sampleRate: rate)
            _ = player.push(before: frame + 1, into: ring)
            // Render up to the block that holds the chord's frame, then check all 8 voices began in it.
            while mixer.framePosition + 256 <= frame {
                buffer.withUnsafeMutableBufferPointer { mixer.render(into: $0.baseAddress!, frameCount: 256) }
            }
            let before = mixer.activeVoiceCount
            buffer.withUnsafeMutableBufferPointer { mixer.render(into: $0.baseAddress!, frameCount: 256) }
            if mixer.activeVoiceCount - before < 8 && mixer.activeVoiceCount < 128 { split += 1 }
            chords += 1
        }
        return Report(
            seconds: seconds, chords: player.startedNotes / 8, peakVoices: peak, late: engine.mixer.lateEventCount,
            underruns: output.underrunCount, cpuPercent: cpu / wall * 100, splitChords: split + mixer.lateEventCount,
            offlineChords: chords)
    }
}

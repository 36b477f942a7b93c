import MetronomeFiles
import MetronomeKit

/// What `play FILE.mid` asks: the file on the timeline, the channels to leave out or keep, the transposition, where to
/// start and whether the click plays along.
struct MIDIRequest {
    /// The file's path and the tempo options `play` shares with patterns (`--start-at`, `--tempo-scale`).
    let pattern: PatternRequest
    let sequence: MIDISequence
    let click: Bool
    let muted: Set<Int>
    let soloed: Set<Int>
    let transpose: Int

    /// The most a MIDI file may hold: 64 MiB (the largest General MIDI files are a few MB).
    static let maximumBytes = 64 * 1_048_576
    /// Seconds rendered after the file's end, for the last notes' release (the render's last 5 ms fade).
    static let tailSeconds = 2.0

    /// Whether a path names a Standard MIDI File: a .mid, .midi, .smf or .kar extension, or the "MThd" signature.
    static func isMIDI(path: String) -> Bool {
        OutputOptions.namesMIDIFile(path) || BinaryFile.starts(path: path, with: Array("MThd".utf8))
    }

    /// Reads and places the file (missing 66; malformed 65 with the byte offset).
    init(
        path: String, startAt: String?, tempoScale: String?, click: Bool, mute: String?, solo: String?,
        transpose: String?, sampleRate: SampleRate
    ) throws(CommandLineError) {
        pattern = PatternRequest(file: PatternFile(path: path), startAt: startAt, tempoScale: tempoScale)
        let bytes: [UInt8]
        do {
            bytes = try BinaryFile.read(path: path, maximumBytes: MIDIRequest.maximumBytes)
        } catch {
            throw CommandLineError(error.isMissing ? .noInput : .dataError, error.description)
        }
        do {
            sequence = try MIDIFile(parsing: bytes).timeline(sampleRate: sampleRate)
        } catch let error as MIDIFileError {
            throw CommandLineError(.dataError, "\(path): error: \(error.description)", prefixed: false)
        } catch {
            throw CommandLineError(.dataError, "\(path): error: \(error)", prefixed: false)
        }
        self.click = click
        muted = try MIDIRequest.channels(mute, option: "--mute")
        soloed = try MIDIRequest.channels(solo, option: "--solo")
        self.transpose =
            try transpose.map { text throws(CommandLineError) -> Int in
                guard let value = Int(text), (-48...48).contains(value) else {
                    throw .usage(
                        option: "--transpose", "\(text): the transposition must be a whole number from -48 to 48")
                }
                return value
            } ?? 0
    }

    /// Channels 1...16 separated by commas, as 0...15.
    private static func channels(_ text: String?, option: String) throws(CommandLineError) -> Set<Int> {
        guard let text else { return [] }
        var result: Set<Int> = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let channel = Int(part), (1...16).contains(channel) else {
                throw .usage(option: option, "\(text): give MIDI channels from 1 to 16 separated by commas")
            }
            result.insert(channel - 1)
        }
        return result
    }

    /// The map played: the file's, its tempos set by `--bpm` (the first tempo becomes B, the others keep their
    /// proportion) or scaled by `--tempo-scale`, its clicks silent without `--click`, a count-in before it.
    func map(sampleRate: SampleRate, tempo: TempoOverride, subdivision: Int?, countInBars: Int) throws(CommandLineError)
        -> TempoMap
    {
        var map = sequence.tempoMap
        let first = map.tempo(at: .zero)
        switch tempo {
        case .none: break
        case .bpm(let bpm): map = map.settingTempo(bpm, from: .zero)
        case .scale(let factor): map = map.settingTempo(BPM.clamping(first * factor), from: .zero)
        }
        do {
            for index in map.sections.indices {
                let meter = map.sections[index].meter
                var change = TempoMap.ClickChange(subdivision: click ? subdivision : 1)
                if !click { change.accents = AccentPattern(levels: Array(repeating: .silent, count: meter.beats)) }
                if change.accents != nil || change.subdivision != nil {
                    map = try map.changingClicks(fromBar: map.startBars[index], change)
                }
            }
            return try map.withCountIn(bars: countInBars)
        } catch {
            throw CommandLineError(.usage, error.description)
        }
    }

    /// Ticks the file's positions move by on `map`: the count-in's length.
    static func offset(on map: TempoMap) -> Int64 { map.position(ofBar: map.firstBar)?.ticks ?? 0 }

    /// `--start-at BAR|MARKER`: a locate to that bar (a marker: the bar it falls in), at the first downbeat of the
    /// music — after the count-in, which plays at the file's opening tempo.
    func start(on map: TempoMap) throws(CommandLineError) -> (command: TransportCommand, at: Quantization)? {
        guard let text = pattern.startAt else { return nil }
        let music = Position(ticks: MIDIRequest.offset(on: map))
        if let bar = Int(text) {
            guard bar >= 1, bar <= (map.barCount ?? 0) else {
                throw .usage(option: "--start-at", "\(text): the file has bars 1 to \(map.barCount ?? 0)")
            }
            return (.locateBar(bar), .position(music))
        }
        guard let marker = sequence.markers.first(where: { $0.name == text }) else {
            let names = sequence.markers.map { "'\($0.name)'" }.joined(separator: ", ")
            throw .usage(
                option: "--start-at",
                "\(text): no such marker or bar; "
                    + (names.isEmpty ? "the file has no markers" : "the file's markers are \(names)"))
        }
        let position = Position(ticks: marker.position.ticks + music.ticks)
        let bar = (map.barPosition(at: position)?.bar ?? map.firstBar) - map.firstBar + 1
        return (.locateBar(bar), .position(music))
    }

    /// Frames to play: `--duration`, `--bars` from where playing starts, or to the file's end plus the tail.
    func renderFrames(
        on map: TempoMap, bars: Int?, seconds: Double?, start: TransportCommand?, sampleRate: SampleRate
    ) throws(CommandLineError) -> SampleTime {
        if let seconds { return sampleRate.frame(at: seconds) }
        let music = map.frame(at: Position(ticks: MIDIRequest.offset(on: map)))
        var from = map.firstBar
        if case .locateBar(let bar) = start { from = map.firstBar + bar - 1 }
        let skipped = (map.frame(ofBar: from) ?? music) - music
        if let bars, let end = map.frame(ofBar: min(from + bars, map.startBars.last!)) {
            return end - skipped
        }
        return (map.endFrame ?? music) - skipped + sampleRate.frame(at: MIDIRequest.tailSeconds)
    }

    /// The note player of the file on `map`, made when playing starts: its 16 channels through the font
    /// (`FontChoice.forMIDIFile`; channel 10 on the drum kits), or the built-in piano with a note on stderr.
    func notes(on map: TempoMap, soundfont: String?) throws(CommandLineError) -> @Sendable () -> NotePlayer {
        let tracks: [NotePlayer.Track]
        if let choice = FontChoice.forMIDIFile(given: soundfont) {
            let font = try FontChoice.load(path: choice.path, origin: choice.origin)
            tracks = (0..<16).map { channel in
                .init(
                    font: FontInstrument(
                        font: font, bank: channel == 9 ? 128 : 0, channel: channel, isDrumChannel: channel == 9),
                    gain: FontChoice.fileGain)
            }
        } else {
            FileOutput.standardError.write(
                "metronome: no SoundFont (--soundfont, $METRONOME_SOUNDFONT or \(FontChoice.systemFont)); "
                    + "playing the built-in piano, drums silent\n")
            let piano = InstrumentSynthesizer.bank(.piano, sampleRate: map.sampleRate)
            tracks = (0..<16).map { .init(bank: piano, gain: $0 == 9 ? 0 : 1) }
        }
        let (sequence, offset) = (self.sequence, MIDIRequest.offset(on: map))
        let (muted, soloed, transposition) = (self.muted, self.soloed, self.transpose)
        return {
            NotePlayer(
                tracks: tracks,
                source: MIDINotes(
                    sequence: sequence, map: map, offset: offset, muted: muted, soloed: soloed,
                    transpose: transposition),
                sampleRate: map.sampleRate)
        }
    }
}

import Glibc
import MetronomeEngine
import MetronomeFiles
import MetronomeMIDI
import MetronomeModel
import MetronomeMusic
import MetronomePatterns
import MetronomeSoundFont

/// A Standard MIDI File to play: its notes on the timeline, the channels left out or kept, the transposition, where
/// playing starts and whether the click sounds along.
///
/// Threads: a value; read it on a control thread, use it anywhere.
public struct MIDIPlayback: Sendable {
    /// The file's path.
    public let path: String
    /// The file on a timeline at the output rate.
    public let sequence: MIDISequence
    /// Whether the click sounds along (else the map keeps its grid, silent).
    public var click: Bool
    /// Channels (0...15) left out.
    public var muted: Set<Int>
    /// Channels (0...15) kept alone, when not empty.
    public var soloed: Set<Int>
    /// Semitones every note but the drums moves, -48...48.
    public var transpose: Int
    /// Where playing starts: a bar number from 1, or a marker's name.
    public var startAt: String?

    /// The most a MIDI file may hold: 64 MiB (the largest General MIDI files are a few MB).
    public static let maximumBytes = 64 * 1_048_576
    /// Seconds played after the file's end, for the last notes' release.
    public static let tailSeconds = 2.0

    /// Whether a path names a Standard MIDI File: a .mid, .midi, .smf or .kar extension, or the "MThd" signature.
    /// - Parameter path: a file's path.
    public static func isMIDI(path: String) -> Bool {
        namesMIDIFile(path) || BinaryFile.starts(path: path, with: Array("MThd".utf8))
    }

    /// Whether a path ends in .mid, .midi, .smf or .kar (any case).
    /// - Parameter path: a file's path.
    public static func namesMIDIFile(_ path: String) -> Bool {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return false }
        return ["mid", "midi", "smf", "kar"].contains(path[path.index(after: dot)...].lowercased())
    }

    /// Reads and places the file.
    /// - Parameters:
    ///   - path: the file (at most `maximumBytes`).
    ///   - sampleRate: the output rate.
    /// - Throws: `MIDIPlaybackError.file` when it cannot be read, `.malformed` with the byte offset.
    public init(path: String, sampleRate: SampleRate) throws(MIDIPlaybackError) {
        self.path = path
        let bytes: [UInt8]
        do { bytes = try BinaryFile.read(path: path, maximumBytes: MIDIPlayback.maximumBytes) } catch {
            throw .file(error)
        }
        do {
            sequence = try MIDIFile(parsing: bytes).timeline(sampleRate: sampleRate)
        } catch let error as MIDIFileError {
            throw .malformed(path: path, error.description)
        } catch {
            throw .malformed(path: path, "\(error)")
        }
        click = false
        muted = []
        soloed = []
        transpose = 0
    }

    /// The map played: the file's, its tempos set by `.bpm` (the first tempo becomes B, the others keep their
    /// proportion) or scaled by `.scale`, its clicks silent without `click`, a count-in before it.
    /// - Throws: `InvalidValue` for a bad subdivision or count-in.
    public func map(sampleRate: SampleRate, tempo: TempoOverride, subdivision: Int?, countInBars: Int)
        throws(InvalidValue) -> TempoMap
    {
        var map = sequence.tempoMap
        let first = map.tempo(at: .zero)
        switch tempo {
        case .none: break
        case .bpm(let bpm): map = map.settingTempo(bpm, from: .zero)
        case .scale(let factor): map = map.settingTempo(BPM.clamping(first * factor), from: .zero)
        }
        for index in map.sections.indices {
            let meter = map.sections[index].meter
            var change = TempoMap.ClickChange(subdivision: click ? subdivision : 1)
            if !click { change.accents = AccentPattern(levels: Array(repeating: .silent, count: meter.beats)) }
            if change.accents != nil || change.subdivision != nil {
                map = try map.changingClicks(fromBar: map.startBars[index], change)
            }
        }
        return try map.withCountIn(bars: countInBars)
    }

    /// Ticks the file's positions move by on `map`: the count-in's length.
    public static func offset(on map: TempoMap) -> Int64 { map.position(ofBar: map.firstBar)?.ticks ?? 0 }

    /// The locate `startAt` asks for (a marker: the bar it falls in), at the first downbeat of the music — after the
    /// count-in, which plays at the file's opening tempo; nil without `startAt`.
    /// - Throws: `PlanError.midiStart` for a bar out of range or an unknown marker.
    public func start(on map: TempoMap) throws(PlanError) -> (command: TransportCommand, at: Quantization)? {
        guard let text = startAt else { return nil }
        let music = Position(ticks: MIDIPlayback.offset(on: map))
        if let bar = Int(text) {
            guard bar >= 1, bar <= (map.barCount ?? 0) else {
                throw .midiStart("\(text): the file has bars 1 to \(map.barCount ?? 0)")
            }
            return (.locateBar(bar), .position(music))
        }
        guard let marker = sequence.markers.first(where: { $0.name == text }) else {
            let names = sequence.markers.map { "'\($0.name)'" }.joined(separator: ", ")
            throw .midiStart(
                "\(text): no such marker or bar; "
                    + (names.isEmpty ? "the file has no markers" : "the file's markers are \(names)"))
        }
        let position = Position(ticks: marker.position.ticks + music.ticks)
        let bar = (map.barPosition(at: position)?.bar ?? map.firstBar) - map.firstBar + 1
        return (.locateBar(bar), .position(music))
    }

    /// Frames to play: `seconds`, `bars` from where playing starts, or to the file's end plus the tail.
    public func frameCount(on map: TempoMap, bars: Int?, seconds: Double?, start: TransportCommand?) -> SampleTime {
        let sampleRate = map.sampleRate
        if let seconds { return sampleRate.frame(at: seconds) }
        let music = map.frame(at: Position(ticks: MIDIPlayback.offset(on: map)))
        var from = map.firstBar
        if case .locateBar(let bar) = start { from = map.firstBar + bar - 1 }
        let skipped = (map.frame(ofBar: from) ?? music) - music
        if let bars, let end = map.frame(ofBar: min(from + bars, map.startBars.last!)) {
            return end - skipped
        }
        return (map.endFrame ?? music) - skipped + sampleRate.frame(at: MIDIPlayback.tailSeconds)
    }

    /// The note player of the file on `map`, made when playing starts: its 16 channels through `font` (channel 10
    /// on the drum kits, at `FontChoice.fileGain`), or with no font the built-in piano, drums silent.
    /// - Parameters:
    ///   - map: the map played (`map(sampleRate:…)`).
    ///   - font: the SoundFont, or nil for the built-in piano.
    public func notes(on map: TempoMap, font: SoundFont?) -> @Sendable () -> NotePlayer {
        let tracks: [NotePlayer.Track]
        if let font {
            tracks = (0..<16).map { channel in
                .init(
                    font: FontInstrument(
                        font: font, bank: channel == 9 ? 128 : 0, channel: channel, isDrumChannel: channel == 9),
                    gain: FontChoice.fileGain)
            }
        } else {
            let piano = InstrumentSynthesizer.bank(.piano, sampleRate: map.sampleRate)
            tracks = (0..<16).map { .init(bank: piano, gain: $0 == 9 ? 0 : 1) }
        }
        // The notes are read from the file once, here: a set's switch makes the player on the scheduling thread,
        // where only a copy of the source is made.
        let source = MIDINotes(
            sequence: sequence, map: map, offset: MIDIPlayback.offset(on: map), muted: muted, soloed: soloed,
            transpose: transpose)
        return { NotePlayer(tracks: tracks, source: source, sampleRate: map.sampleRate) }
    }
}

/// Why a MIDI file could not be played.
public enum MIDIPlaybackError: Error, Sendable, CustomStringConvertible {
    /// Missing, unreadable or too large.
    case file(BinaryFileError)
    /// Not a Standard MIDI File: the path and the reason with its byte offset.
    case malformed(path: String, String)

    /// `FILE: error: …` for a malformed file, the file error otherwise.
    public var description: String {
        switch self {
        case .file(let error): error.description
        case .malformed(let path, let reason): "\(path): error: \(reason)"
        }
    }
}

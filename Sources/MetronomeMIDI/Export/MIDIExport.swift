import MetronomeModel
import MetronomeMusic

/// A click track and its notes as a Standard MIDI File (format 1) that DAWs import: `metronome -o FILE.mid`.
///
/// - Track 0, the conductor: the name, a time signature wherever the meter changes, the tempo map as tempo events
///   (below), and a marker at the start of every labelled section.
/// - Track 1, "Click" (when any click sounds): every sounding click of `ClickTimeline` as a General MIDI
///   percussion note on channel 10 (`MIDIClickNotes`), lasting a 32nd note, or less when the next click on the same
///   key comes sooner.
/// - One track per part (`MIDIExportPart`) on channels 1, 2, … (indices 0, 1, …; channel 10 skipped), starting with
///   the part's program change; its notes, and its channel messages.
///
/// Division: the fewest ticks per quarter note, from 960 up (960 × a divisor of 30,030, at most 32,767), on which
/// every click and note-on falls exactly: 960 for straight grids down to 1/16 notes and their triplets and
/// quintuplets, 6720 for septuplets. When no such division places every onset, 960, and each onset moves to the
/// nearest tick: by at most half a tick (1/1920 of a quarter note; 0.26 ms at 120 BPM). Note-offs always go to the
/// nearest tick.
///
/// Tempo (`tempoCourse`): the tempo course is cut into steps, and each step gets the whole number of microseconds
/// per quarter that brings the file's time at the step's end nearest to the map's exact time there (the rounding
/// error is carried from step to step, not added up). Where the steps are cut is the choice:
/// - `.steady` (the default, what a DAW's tempo lane reads well): one step per stretch of constant tempo, so a
///   steady tempo is one tempo event (112 BPM: 535,714 µs, once); a step per beat of a tempo-per-beat list, and
///   inside a ramp every 32nd note and at every onset. The file's grid then drifts from ours inside a stretch of
///   constant tempo by the rounding of its one value, at most half a microsecond per quarter note (an hour at
///   112 BPM: 6,720 quarters 0.29 µs short each, 1.92 ms early at the end, `MIDIExportTempoTests`), and is put back
///   at the next tempo change.
/// - `.exact`: also a step at every beat of a constant tempo that is not a whole number of microseconds per quarter
///   (112 BPM: 535,714 and 535,715 alternating), so every beat lies on its frame. Every onset at a step boundary
///   plays in the imported file within half a microsecond per quarter note of a step (0.03 frames at 48 kHz) of its
///   exact time, plus the tick rounding above, and its frame — round(time × rate) — differs from the original by at
///   most one, only where the exact time lies that close to halfway between two frames (`MIDIExportRampTests`
///   measures this).
///
/// A constant tempo that is a whole number of microseconds per quarter note (120 BPM) is one tempo event either way.
/// MIDI cannot hold tempos below 3.58 BPM (16,777,215 µs per quarter note): such a map throws.
public struct MIDIExport: Sendable {
    /// The map to export (its count-in included).
    public var map: TempoMap
    /// The first frame not exported, or nil for the end of a finite map.
    public var endFrame: SampleTime?
    /// The name of the conductor track (the sequence name DAWs show).
    public var name: String
    /// How clicks become notes, or nil for no click track.
    public var clickNotes: MIDIClickNotes?
    /// The note tracks, in channel order.
    public var parts: [MIDIExportPart]
    /// Where the tempo course is cut into tempo events (the type's notes): `.steady` by default.
    public var tempoCourse: TempoCourse = .steady

    /// How a constant tempo that is not a whole number of microseconds per quarter note becomes tempo events.
    public enum TempoCourse: String, Sendable, Equatable, CaseIterable {
        /// One tempo event for the stretch: a DAW's tempo lane shows one tempo; its grid drifts by the rounding.
        case steady
        /// A tempo event at every beat, the rounding carried: every beat on its frame.
        case exact
    }

    /// The preferred division, and the step the divisions tried grow by: 960 ticks per quarter note.
    public static let baseTicksPerQuarter: Int64 = 960
    /// Tempo steps per quarter note inside a ramp: 8 (a step every 32nd note).
    public static let rampStepsPerQuarter: Int64 = 8
    /// A click note's length: a 32nd note, 1/8 of a quarter.
    public static let clickLengthPerQuarter: Int64 = 8
    /// The channel of the click (General MIDI's drum channel, "channel 10").
    public static let clickChannel: UInt8 = 9

    /// Bars muted at random (`RandomMute`): their clicks are left out of the click track, as a render leaves them
    /// silent.
    public var randomMute: RandomMute?

    /// Creates an export.
    /// - Parameters:
    ///   - map: the map clicks and notes are placed on.
    ///   - endFrame: the first frame not exported (a render's frame count), or nil for the end of a finite map.
    ///   - name: the sequence name.
    ///   - clickNotes: the click's notes, or nil for no click track.
    ///   - parts: the note tracks.
    public init(
        map: TempoMap, endFrame: SampleTime? = nil, name: String, clickNotes: MIDIClickNotes? = .generalMIDI,
        parts: [MIDIExportPart] = []
    ) {
        self.map = map
        self.endFrame = endFrame
        self.name = name
        self.clickNotes = clickNotes
        self.parts = parts
    }

    /// The file: conductor, click and note tracks as described above.
    /// - Returns: a format 1 file with a ticks-per-quarter division.
    /// - Throws: `InvalidValue` for an endless map without `endFrame`, more than 15 parts, or a tempo below 3.58 BPM.
    /// - Complexity: O(n log n), n the clicks, notes and tempo steps exported.
    public func file() throws(InvalidValue) -> MIDIFile {
        guard let end = endFrame ?? map.endFrame else {
            throw InvalidValue(
                value: "an endless map", reason: "a MIDI export needs an end (a number of bars or seconds)")
        }
        guard parts.count <= 15 else {
            throw InvalidValue(
                value: "\(parts.count) note tracks", reason: "a MIDI file has 15 channels besides the click")
        }
        let endPosition = endFrame == nil ? map.endPosition! : map.position(at: end)
        let clicks = collectClicks(before: end)
        let notes = parts.map { collectNotes($0.source, before: end, endPosition: endPosition) }
        let onsets = clicks.map(\.position) + notes.flatMap { $0.notes.map(\.on) + $0.messages.map(\.position) }
        let scale = MIDIExportScale(onsets: onsets)
        let endTick = scale.tick(endPosition.ticks)
        var tracks = [try conductor(scale: scale, endTick: endTick, rampOnsets: onsets)]
        if !clicks.isEmpty {
            let clickLength = scale.ticksPerQuarter / MIDIExport.clickLengthPerQuarter
            let timed = clicks.map { click in
                let tick = scale.tick(click.position)
                return MIDIExportNotes.Note(
                    on: tick, off: tick + clickLength, key: click.note.key, velocity: click.note.velocity)
            }
            tracks.append(
                MIDIExportNotes.track(
                    name: "Click", channel: MIDIExport.clickChannel, program: nil, notes: timed, messages: [],
                    endTick: endTick))
        }
        for (index, part) in parts.enumerated() {
            let channel = UInt8(index < Int(MIDIExport.clickChannel) ? index : index + 1)
            let timed = notes[index].notes.map {
                MIDIExportNotes.Note(
                    on: scale.tick($0.on), off: scale.tick($0.off), key: UInt8($0.key), velocity: UInt8($0.velocity))
            }
            let messages = notes[index].messages.map { (scale.tick($0.position), $0.message) }
            tracks.append(
                MIDIExportNotes.track(
                    name: part.name, channel: channel, program: part.program, notes: timed, messages: messages,
                    endTick: endTick))
        }
        return MIDIFile(
            format: .simultaneousTracks, division: .ticksPerQuarter(Int(scale.ticksPerQuarter)), tracks: tracks)
    }

    /// The sounding clicks before `end`, at their positions (the nearest position tick of a swung click or a
    /// layer click between ticks).
    private func collectClicks(before end: SampleTime) -> [(position: Int64, note: MIDIClickNotes.Note)] {
        guard let clickNotes else { return [] }
        var timeline = ClickTimeline(map: map)
        var clicks: [(position: Int64, note: MIDIClickNotes.Note)] = []
        while let event = timeline.next(), event.frame < end {
            if let randomMute, !event.isCountIn, randomMute.mutes(bar: event.bar, firstBar: map.firstBar) { continue }
            guard let note = clickNotes.note(for: event) else { continue }
            clicks.append((map.position(atExactFrame: event.exactFrame).ticks, note))
        }
        return clicks
    }

    /// A source's notes that start before `end`, note-offs cut at the end, with their positions.
    private func collectNotes(_ source: any NoteSource, before end: SampleTime, endPosition: Position) -> (
        notes: [(on: Int64, off: Int64, key: Int, velocity: Int)],
        messages: [(position: Int64, message: ChannelMessage)]
    ) {
        var source = source
        source.seek(to: .zero, on: map)
        var notes: [(on: Int64, off: Int64, key: Int, velocity: Int)] = []
        var messages: [(position: Int64, message: ChannelMessage)] = []
        while let batch = source.nextBatch(), let first = batch.first, first.frame < end {
            for event in batch where event.frame < end {
                let on = map.position(atExactFrame: event.exactFrame).ticks
                if let message = event.message {
                    messages.append((on, message))
                } else {
                    let off = min(map.position(atExactFrame: event.exactOffFrame).ticks, endPosition.ticks)
                    notes.append((on, off, min(127, max(0, event.note)), min(127, max(1, event.velocity))))
                }
            }
        }
        return (notes, messages)
    }
}

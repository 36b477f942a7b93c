import Glibc
import MetronomeEngine
import MetronomeLive
import MetronomeMIDI
import MetronomeModel
import MetronomeMusic

/// Everything a click track needs, checked and ready to play or render: the map, the click sounds, the notes, the
/// mixer settings and the length. `ClickPlan.init(_:)` builds one from typed settings (`ClickRequest`); the command
/// line, the OSC service and a library user all start here.
///
/// Threads: a value; build it on a control thread (it reads files), use it anywhere.
public struct ClickPlan: Sendable {
    /// What plays: tempo, meters, accents, count-in.
    public var map: TempoMap
    /// The click sounds.
    public var clicks: ClickSet
    /// Linear master gain.
    public var gain: Float
    /// Linear gain of every click, under the master gain (1: the master gain alone; a set's songs use it).
    public var clickGain: Float = 1
    /// The output rate (the map's).
    public var sampleRate: SampleRate
    /// Channels of the output: 1 or 2.
    public var channels: Int
    /// Sample voices that may sound at once.
    public var voices: Int
    /// SoundFont voices that may sound at once.
    public var polyphony = 256
    /// Frames to play, or nil when the click is endless.
    public var frameCount: SampleTime?
    /// Bars of music played (count-in excluded), when the length is a whole number of bars.
    public var bars: Int?
    /// The built-in click sound chosen (the request's, else a pattern file's, else `standard`), even when sample
    /// files replace it in `clicks`.
    public var sound: ClickStyle = .standard
    /// The master gain as a perceptual volume, ∛gain, at most 1 (what the volume keys and OSC's volume start from).
    public var volume: Float { min(1, Float(cbrt(Double(gain)))) }
    /// The note-track instrument a pattern file asks for.
    public var instrument: BuiltInInstrument?
    /// The SoundFont preset a pattern file asks its note track to play, its path resolved against the file's folder.
    public var soundFont: SoundFontReference?
    /// Notes to play with the clicks (an arpeggio, a chord, a file's note track, a MIDI file), made when playing
    /// starts.
    public var notes: (@Sendable () -> NotePlayer)?
    /// The instrument notes arriving on a MIDI input play (JACK's `midi_in`); nil: the default instrument.
    public var midiInputTrack: NotePlayer.Track?
    /// Set: the keys held on a MIDI input are arpeggiated with these settings (latched or not) instead of played.
    public var midiInputArpeggio: (settings: ArpeggioSettings, latch: Bool)?
    /// A transport command sent as playing starts (a MIDI file's start bar: a locate after the count-in).
    public var start: (command: TransportCommand, at: Quantization)?
    /// The same notes as note tracks of a MIDI export.
    public var parts: [MIDIExportPart] = []
    /// Whether the transport waits for a play command instead of playing at once.
    public var waits = false
    /// Bars muted at random (`RandomMute`), live and rendered alike.
    public var randomMute: RandomMute?
    /// The practice timer (`PracticeTimer`): the session ends after its end chime.
    public var practice: PracticeTimer?
    /// How long the end of a render fades (`AudioFileRender.fadeOut`): a practice timer's render lasts this long past
    /// its chime, so the fade falls on silence.
    public static let renderFadeOut: Duration = .milliseconds(5)
    /// What plays, in a few words, for the practice log: a pattern's name or file, a MIDI file, `click 120 4/4`
    /// (`SettingForm.clickPlan` sets it; a command that plays notes names them).
    public var title = ""
    /// The sound, in a few words, for the practice log: the click's name, the sample files, the SoundFont.
    public var soundName: String {
        if let soundFont { return "SoundFont \(soundFont.path) program \(soundFont.program) bank \(soundFont.bank)" }
        let click = soundFiles.map { "files \($0.joined(separator: ","))" } ?? sound.rawValue
        return instrument.map { "\(click) + \($0.rawValue)" } ?? click
    }
    /// The click's sample files (`--sound-file`), when they replace the built-in sound.
    public var soundFiles: [String]?

    /// A plan from its parts; `init(_:)` builds one from a request.
    /// - Parameters:
    ///   - map: what plays.
    ///   - clicks: the click sounds (made for `map`'s rate).
    ///   - gain: linear master gain.
    ///   - channels: 1 or 2.
    ///   - voices: sample voices that may sound at once.
    ///   - frameCount: frames to play (nil: endless, or the map's end).
    ///   - bars: bars of music played, for a summary.
    public init(
        map: TempoMap, clicks: ClickSet, gain: Float = 1, channels: Int = 2, voices: Int = 64,
        frameCount: SampleTime? = nil, bars: Int? = nil
    ) {
        self.map = map
        self.clicks = clicks
        self.gain = gain
        self.sampleRate = map.sampleRate
        self.channels = channels
        self.voices = voices
        self.frameCount = frameCount
        self.bars = bars
    }

    /// The plan as a Standard MIDI File: its map, its clicks (a random mute's bars left out, as a render leaves them
    /// silent) and its note parts, up to `endFrame`.
    /// - Parameters:
    ///   - endFrame: the first frame not exported.
    ///   - name: the sequence name.
    public func midiExport(endFrame: SampleTime, name: String) -> MIDIExport {
        var export = MIDIExport(map: map, endFrame: endFrame, name: name, parts: parts)
        export.randomMute = randomMute
        return export
    }

    /// The mixer settings the plan asks for.
    /// - Throws: `InvalidValue` when the channels, voices or polyphony are out of range.
    public func mixerConfiguration() throws(InvalidValue) -> MixerConfiguration {
        try MixerConfiguration(
            sampleRate: sampleRate, channels: channels, voiceCapacity: voices, fontPolyphony: polyphony)
    }

    /// The playback chain for the plan, live or offline: its notes made now, its start command sent.
    /// - Parameters:
    ///   - configuration: the mixer settings (default: `mixerConfiguration()`).
    ///   - lookahead: how far ahead to schedule, in frames (nil: the session's default).
    ///   - live: playing live, where the transport can be moved (keys, OSC, the JACK transport): a length that is
    ///     the map's own end is left to the map, so the song ends where the transport reaches its end after any
    ///     locate (`Session.hasReachedEnd`), not on the frame it would have ended on without them; a length of
    ///     seconds or bars stays a fixed end frame (joining Link, `LinkSession.prepared` makes a length in bars the
    ///     map's own end by cutting the map, since the start waits). Offline, both are the same frame.
    /// - Returns: a session at frame 0, playing unless `waits`.
    /// - Throws: `PlanError.mixer` or `.session`.
    public func session(configuration: MixerConfiguration? = nil, lookahead: SampleTime? = nil, live: Bool = false)
        throws(PlanError) -> Session
    {
        let mixer: MixerConfiguration
        if let configuration {
            mixer = configuration
        } else {
            do { mixer = try mixerConfiguration() } catch { throw .mixer(error) }
        }
        do {
            let session = try Session(
                map: map, clicks: clicks, configuration: mixer,
                endFrame: live && frameCount != nil && frameCount == map.endFrame ? nil : frameCount, gain: gain,
                clickGain: clickGain,
                players: notes.map { [$0()] } ?? [], lookahead: lookahead, playing: !waits)
            // A start at a position (a count-in's end) waits beside the transport's queue, not in it, so a stop or a
            // pause during the count-in is not held back behind it; one due at once goes in the queue.
            if let start {
                if case .position(let position) = start.at {
                    session.setStart(start.command, at: position)
                } else {
                    session.send(start.command, at: start.at)
                }
            }
            if let randomMute { session.muteBars(randomMute) }
            if let practice { session.practise(practice) }
            return session
        } catch {
            throw .session(error)
        }
    }
}

import MetronomeModel

/// What `serve [FILE]` plays, chosen by the file: a Standard MIDI File (told by its header, whatever its name) is
/// served with its notes and the click along, the transport over OSC and keys moving both; anything else named is a
/// pattern (a shipped one by name, a file in the library's folders, or a path: `PatternLibrary`); no file, a click
/// from the options.
public enum ServedFile: Sendable {
    case midi(MIDIPlayback)
    case pattern(PatternDocument)
    case click

    /// Chooses by `file`: a MIDI file is read and placed at the `sampleRate` asked for then (the options' rate,
    /// checked only for a MIDI file) with its click on (missing 66, malformed 65 with the byte offset); a pattern is
    /// only looked up here (read when the plan is made).
    public init(
        _ file: String?, library: PatternLibrary, sampleRate: () throws(CommandLineError) -> SampleRate
    ) throws(CommandLineError) {
        guard let file else {
            self = .click
            return
        }
        guard MIDIPlayback.isMIDI(path: file) else {
            self = .pattern(library.document(named: file))
            return
        }
        self = .midi(
            try MIDIPlayback.checked(
                path: file, form: SettingForm([SettingForm.flag("--click", true)]), sampleRate: try sampleRate()))
    }

    /// The plan's source.
    public var source: ClickFormSource {
        switch self {
        case .midi(let playback): .midi(playback)
        case .pattern(let document): .pattern(document, startAt: nil)
        case .click: .click(silent: false)
        }
    }
}

extension MIDIPlayback {
    /// Reads and places the file (missing 66; malformed 65 with the byte offset), then applies `form`'s MIDI
    /// options (`SettingForm.configure`): `play FILE.mid` and `serve FILE.mid`.
    public static func checked(path: String, form: SettingForm, sampleRate: SampleRate) throws(CommandLineError)
        -> MIDIPlayback
    {
        var playback: MIDIPlayback
        do { playback = try MIDIPlayback(path: path, sampleRate: sampleRate) } catch { throw CommandLineError(error) }
        do { try form.configure(&playback) } catch { throw CommandLineError(error) }
        return playback
    }
}

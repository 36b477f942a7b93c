import MetronomeFiles
import MetronomeLive
import MetronomeModel

/// Why a plan could not be made or started. Each case carries what a message needs; the command line adds the
/// option that named the value and chooses the exit status.
public enum PlanError: Error, Sendable, CustomStringConvertible {
    /// The pattern file cannot be read, is malformed, or a tempo override cannot apply to it.
    case pattern(PatternDocumentError)
    /// The pattern's map cannot start at the label or bar asked for (`startAt`).
    case startAt(InvalidValue)
    /// The pattern's map cannot be made (a bad count-in or subdivision for it): the path and the reason.
    case patternMap(path: String, InvalidValue)
    /// The pattern plays without end, and a render needs an end.
    case endless(path: String)
    /// The click's own settings cannot make a map.
    case section(InvalidValue)
    /// The MIDI file's map cannot take the settings.
    case midiMap(InvalidValue)
    /// The MIDI file has no such bar or marker to start at: the reason, starting with the value.
    case midiStart(String)
    /// A click sample file cannot be read.
    case clickSample(AudioFileError)
    /// The mixer settings are out of range.
    case mixer(InvalidValue)
    /// The session refused the map or a player.
    case session(SessionError)

    /// The message, without any option name.
    public var description: String {
        switch self {
        case .pattern(let error): error.description
        case .startAt(let error), .section(let error), .midiMap(let error), .mixer(let error): error.description
        case .patternMap(let path, let error): "\(path): \(error.description)"
        case .endless(let path): "\(path) plays without end"
        case .midiStart(let reason): reason
        case .clickSample(let error): error.description
        case .session(let error): error.description
        }
    }
}

import MetronomeApp
import MetronomeLive
import MetronomeModel
import MetronomeService

/// What the server sends a page, as JSON text frames: the state when it changes, each beat ahead of time with the host
/// time it is heard at, the answer to a ping, and why a command was refused.
enum WebMessages {
    /// `{"type":"state",…}`: the service's state (`ServiceState`), what the page shows besides the beat, with the
    /// patterns it may load (`patterns`) and the one loaded under its listed name (`pattern`) when it is listed.
    static func state(_ state: ServiceState, patterns: WebPatterns) -> String {
        JSON.object([
            ("type", JSON.string("state")),
            ("state", JSON.string("\(state.transport)")),
            ("playing", JSON.bool(state.isPlaying)),
            ("tempo", JSON.number(state.tempo)),
            ("meter", JSON.string(state.meter.description)),
            ("beats", JSON.number(state.meter.beats)),
            ("unit", JSON.number(state.meter.unit)),
            ("bar", state.bar.map(JSON.number) ?? "null"),
            ("beat", state.beat.map(JSON.number) ?? "null"),
            ("accents", JSON.string(state.accents)),
            ("section", state.section.map(JSON.string) ?? "null"),
            ("sections", JSON.array(state.sections.map(JSON.string))),
            ("volume", JSON.number(Double(state.volume))),
            ("sound", JSON.string(state.sound)),
            ("pattern", JSON.string(patterns.name(loaded: state.pattern) ?? state.pattern)),
            ("patterns", JSON.array(patterns.entries.map { JSON.string($0.name) })),
            ("link", JSON.bool(state.link)),
            ("peers", JSON.number(state.peers)),
            ("quantum", JSON.number(state.quantum)),
            ("source", JSON.string(state.source)),
            ("sourceState", JSON.string(state.sourceState)),
            ("dropped", JSON.number(state.dropped)),
            ("error", JSON.string(state.error)),
            ("practiceLeft", state.practiceLeft.map(JSON.number) ?? "null"),
            ("setlist", setlist(state)),
        ])
    }

    /// The set served, or null: its title (null when the file gives none), the songs' titles, the song playing and
    /// the one a switch is on its way to (from 1; null for none), the next title (null after the last), and whether
    /// the song has ended and the set waits.
    static func setlist(_ state: ServiceState) -> String {
        guard let song = state.song else { return "null" }
        return JSON.object([
            ("title", state.setlistTitle.map(JSON.string) ?? "null"),
            ("songs", JSON.array(state.songs.map(JSON.string))),
            ("song", JSON.number(song.index + 1)),
            ("pending", song.pending.map { JSON.number($0 + 1) } ?? "null"),
            ("next", song.nextTitle.map(JSON.string) ?? "null"),
            ("waiting", JSON.bool(song.waiting)),
        ])
    }

    /// `{"type":"beat",…}`: a beat, sent as soon as it is scheduled, with `host`, the `CLOCK_MONOTONIC` nanoseconds
    /// at which it is heard (null while the output has no clock yet), `frame`, the output frame it sounds at, and its
    /// accent letter (`X x o .`), and `muted` when a random mute silenced its bar.
    static func beat(_ beat: BeatEvent) -> String {
        JSON.object([
            ("type", JSON.string("beat")),
            ("bar", JSON.number(beat.bar)),
            ("beat", JSON.number(beat.beat)),
            ("beats", JSON.number(beat.meter.beats)),
            ("countIn", JSON.bool(beat.isCountIn)),
            ("level", JSON.string(String(beat.level.letter))),
            ("host", beat.hostNanoseconds.map { JSON.number(Double($0)) } ?? "null"),
            ("frame", JSON.number(Double(beat.frame))),
            ("tempo", JSON.number(beat.tempo)),
            ("section", beat.section.map(JSON.string) ?? "null"),
            ("chord", beat.chord.map(JSON.string) ?? "null"),
            ("muted", JSON.bool(beat.isMuted)),
        ])
    }

    /// `{"type":"pong","page":P,"host":H}`: the page's time of the ping, echoed, and the host time the pong left.
    static func pong(page: Double, hostNanoseconds: Int64) -> String {
        JSON.object([
            ("type", JSON.string("pong")), ("page", JSON.number(page)), ("host", JSON.number(Double(hostNanoseconds))),
        ])
    }

    /// `{"type":"refused","reason":…}`: why a page's command was not applied.
    static func refused(_ reason: String) -> String {
        JSON.object([("type", JSON.string("refused")), ("reason", JSON.string(reason))])
    }
}

/// JSON text written by hand (the module uses no Foundation): values are already-encoded fragments. Public for the
/// other hand-written JSON of the app layer (`metronome clock --json`).
public enum JSON {
    /// `{"key":value,…}` in the order given.
    static func object(_ members: [(String, String)]) -> String {
        "{" + members.map { string($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
    }

    /// `[a,b,…]`.
    public static func array(_ elements: [String]) -> String { "[" + elements.joined(separator: ",") + "]" }

    /// `true` or `false`.
    static func bool(_ value: Bool) -> String { value ? "true" : "false" }

    /// A whole number.
    static func number(_ value: Int) -> String { String(value) }

    /// A number; `null` for one that is not finite (JSON has none).
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// A string, quoted, with quotes, backslashes and control characters escaped.
    public static func string(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                let digits = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}

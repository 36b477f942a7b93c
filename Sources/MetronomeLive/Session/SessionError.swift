import MetronomeModel

/// Why a session cannot be built.
public enum SessionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The map's frames are for one rate and the mixer renders at another: it would play at the wrong tempo.
    case mapRate(map: SampleRate, mixer: SampleRate)
    /// A note player's banks were made for one output rate and the mixer renders at another.
    case playerRate(player: Int, mixer: SampleRate)

    /// One line a person can act on.
    public var description: String {
        switch self {
        case .mapRate(let map, let mixer):
            "the tempo map is for \(map) Hz but the mixer renders at \(mixer) Hz; make both at one rate"
        case .playerRate(let player, let mixer):
            "a note player plays at \(player) Hz but the mixer renders at \(mixer) Hz; make both at one rate"
        }
    }
}

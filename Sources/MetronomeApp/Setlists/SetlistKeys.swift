import MetronomeLive

/// The keys of a set at a terminal, taken before klick's (`KeyAction`): `n` the next song, `b` the one before (back),
/// `r` the song again from its top, and a song's number typed then Enter to go to it. In a set the digits are the
/// song's number, not beats a bar (each song has its meter); every other key is klick's.
///
/// Threads: a value; use it on the keys' thread.
public struct SetlistKeys: Sendable {
    /// What a key does to the set.
    public enum Action: Sendable, Hashable {
        case next, previous, restart
        /// Go to song N (from 1).
        case select(Int)
        /// A digit typed: the number so far, waiting for Enter.
        case typing(Int)
    }

    /// The number typed so far, waiting for Enter.
    private var typed: Int?

    public init() {}

    /// The keys, for `?`, each line under 80 columns.
    public static let summaryLines = [
        "set:  n next song  b song before  r song again  number then Enter: go to that song"
    ]

    /// The set's action of a key, or nil when the key is not one of the set's (klick's keys then act on it). A key
    /// other than a digit or Enter drops the number typed.
    public mutating func take(_ key: Key) -> Action? {
        if case .digit(let digit) = key {
            // Three digits at most (a set holds up to 500 songs): a fourth starts the number again.
            let number = (typed ?? 0) < 100 ? (typed ?? 0) * 10 + digit : digit
            typed = number
            return .typing(number)
        }
        let number = typed
        typed = nil
        switch key {
        case .character("n"): return .next
        case .character("b"): return .previous
        case .character("r"): return .restart
        case .character("\r"), .character("\n"): return number.map { .select($0) }
        default: return nil
        }
    }
}

extension SetlistPlayer {
    /// Acts on a key's action: `.typing` changes nothing (the number waits for Enter); a song number the set does not
    /// have is ignored.
    public func perform(_ action: SetlistKeys.Action) {
        switch action {
        case .next: next()
        case .previous: previous()
        case .restart: restart()
        case .select(let number): select(song: number)
        case .typing: break
        }
    }
}

/// A key of the live keyboard controls (klick's keys).
public enum Key: Sendable, Hashable {
    case left, right, up, down, pageUp, pageDown
    /// A digit key, 0...9.
    case digit(Int)
    case plus, minus, space, escape
    /// Any other printable character (`p`, `t`, `q`, `?`, …).
    case character(Character)
}

/// What a key does while a metronome plays, as klick's keys do: ←/→ −1/+1 BPM, ↓/↑ −10/+10, PgDn/PgUp halve/double,
/// 1–9 beats per bar (0 is 10), `+`/`-` volume, space stop/play, `p` pause/continue, `t` tap, `q` or Esc quit,
/// `?` the list of keys.
public enum KeyAction: Sendable, Hashable {
    /// Add this many BPM to the tempo.
    case tempoStep(Double)
    /// Multiply the tempo by this factor.
    case tempoFactor(Double)
    /// This many beats per bar, in the beat unit playing.
    case beatsPerBar(Int)
    /// Add this to the perceptual volume (0...1).
    case volumeStep(Float)
    case stopOrPlay, pauseOrContinue, tap, quit, help

    /// The action of a key, or nil for a key that does nothing.
    public init?(_ key: Key) {
        switch key {
        case .left: self = .tempoStep(-1)
        case .right: self = .tempoStep(1)
        case .down: self = .tempoStep(-10)
        case .up: self = .tempoStep(10)
        case .pageDown: self = .tempoFactor(0.5)
        case .pageUp: self = .tempoFactor(2)
        case .digit(let digit): self = .beatsPerBar(digit == 0 ? 10 : digit)
        case .plus: self = .volumeStep(0.1)
        case .minus: self = .volumeStep(-0.1)
        case .space: self = .stopOrPlay
        case .escape: self = .quit
        case .character("p"): self = .pauseOrContinue
        case .character("t"): self = .tap
        case .character("q"): self = .quit
        case .character("?"): self = .help
        case .character: return nil
        }
    }

    /// The keys, for `?`: two lines, each under 80 columns.
    public static let summaryLines = [
        "keys: ←/→ −1/+1 BPM  ↓/↑ −10/+10  PgDn/PgUp ÷2/×2  1-9,0 beats a bar  t tap",
        "      +/- volume  space stop/play (keeps what you changed)  p pause  q quit",
    ]
}

/// Turns the bytes a terminal sends into keys: plain characters, and the escape sequences of arrows and page keys
/// (`ESC [ A`…`D`, `ESC O A`…`D`, `ESC [ 5 ~`, `ESC [ 6 ~`). An escape sequence split across reads is completed by
/// the next read; a lone ESC at the end of a read is the Escape key. Unknown sequences are skipped whole.
public struct KeyDecoder: Sendable {
    private var pending: [UInt8] = []

    /// A decoder with nothing pending.
    public init() {}

    /// Decodes the bytes of one read.
    /// - Parameter bytes: what the terminal sent.
    /// - Returns: the keys, in order.
    public mutating func feed(_ bytes: [UInt8]) -> [Key] {
        var input = pending + bytes
        pending = []
        var keys: [Key] = []
        while let first = input.first {
            guard first == 0x1B else {
                input.removeFirst()
                keys.append(KeyDecoder.plain(first))
                continue
            }
            guard input.count >= 2 else {
                // A lone ESC at the end of a read is the Escape key: terminals send a sequence in one write.
                keys.append(.escape)
                input.removeFirst()
                continue
            }
            guard input[1] == 0x5B || input[1] == 0x4F else {
                keys.append(.escape)
                input.removeFirst()
                continue
            }
            // ESC [ or ESC O: parameters (digits, ';') then a final byte 0x40...0x7E.
            guard let end = input.dropFirst(2).firstIndex(where: { (0x40...0x7E).contains($0) }) else {
                pending = input
                break
            }
            let sequence = Array(input[0...end])
            input.removeFirst(end + 1)
            if let key = KeyDecoder.sequence(sequence) { keys.append(key) }
        }
        return keys
    }

    private static func plain(_ byte: UInt8) -> Key {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): .digit(Int(byte - UInt8(ascii: "0")))
        case UInt8(ascii: "+"), UInt8(ascii: "="): .plus
        case UInt8(ascii: "-"): .minus
        case UInt8(ascii: " "): .space
        default: .character(Character(Unicode.Scalar(byte)))
        }
    }

    private static func sequence(_ bytes: [UInt8]) -> Key? {
        switch bytes.dropFirst(2).map({ Character(Unicode.Scalar($0)) }).map(String.init).joined() {
        case "A": .up
        case "B": .down
        case "C": .right
        case "D": .left
        case "5~": .pageUp
        case "6~": .pageDown
        default: nil
        }
    }
}

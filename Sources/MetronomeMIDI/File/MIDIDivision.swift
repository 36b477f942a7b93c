import MetronomeModel

/// What a tick of a Standard MIDI File means (the header's division field).
///
/// Valid values, the only ones a file can carry and the reader produces: `ticksPerQuarter` 1...32767;
/// `framesPerSecond` 24, 25, 29 or 30 and `ticksPerFrame` 1...255. As in the SMPTE and MIDI Time Code standards,
/// 29 stands for 29.97 drop-frame video: 30000/1001 frames a second exactly (drop-frame only renumbers frames; their
/// rate is the same), so a tick lasts 1001 / (30000 · ticksPerFrame) seconds.
public enum MIDIDivision: Sendable, Hashable {
    /// Musical time: ticks per quarter note; seconds follow from the file's tempo events.
    case ticksPerQuarter(Int)
    /// Absolute time: ticks per SMPTE frame at a frame rate; tempo events do not change it.
    case smpte(framesPerSecond: Int, ticksPerFrame: Int)

    /// The frame rates a file may name.
    public static let smpteFrameRates = [24, 25, 29, 30]

    /// Ticks per second of an SMPTE division as a fraction `numerator / denominator` in lowest terms (30000 ·
    /// ticksPerFrame / 1001 for 29.97), or nil for ticks per quarter note.
    public var ticksPerSecond: (numerator: Int64, denominator: Int64)? {
        guard case .smpte(let frames, let ticks) = self else { return nil }
        guard frames == 29 else { return (Int64(frames) * Int64(ticks), 1) }
        let numerator = 30_000 * Int64(ticks)
        let common = Ratio.gcd(numerator, 1001)
        return (numerator / common, 1001 / common)
    }
}

/// Swing: the second note of every pair of `note`-values is played late.
///
/// The delay follows Tone.js's Transport: the off-beat moves by `amount` × ⅔ of the swung note, so 50% is the
/// triplet feel (the off-beat at ⅔ of the pair) and 75% the dotted feel (at ¾). Pairs are counted from each bar's
/// downbeat; a bar's last, incomplete pair (7/8 swung in eighths) is played straight. Clicks inside a pair (16ths
/// under 8th swing) move with it: the first half of the pair is stretched, the second compressed, linearly.
///
/// Invariant: `note` is 8 or 16 and `amount` is 0...0.75.
public struct Swing: Sendable, Hashable, CustomStringConvertible {
    /// Note values that can be swung.
    public static let notes = [8, 16]
    /// Largest amount accepted (the dotted feel).
    public static let maximumAmount = 0.75

    /// 8 for swung eighths, 16 for swung sixteenths.
    public let note: Int
    /// 0 (straight) ... 0.75 (dotted).
    public let amount: Double

    /// Creates swing on eighths or sixteenths.
    /// - Throws: `InvalidValue` for another note value or an amount outside 0...0.75.
    public init(note: Int, amount: Double) throws(InvalidValue) {
        guard Swing.notes.contains(note) else {
            throw InvalidValue(value: String(note), reason: "swing applies to 8 (eighths) or 16 (sixteenths)")
        }
        guard amount.isFinite, (0...Swing.maximumAmount).contains(amount) else {
            throw InvalidValue(value: "\(amount * 100)%", reason: "the swing amount must be from 0% to 75%")
        }
        self.note = note
        self.amount = amount
    }

    /// Moves a position inside a bar (in beats of a 1/`unit` note) to where swing plays it.
    /// - Parameters:
    ///   - position: beats from the bar's downbeat.
    ///   - unit: the meter's beat unit.
    ///   - barBeats: beats in the bar.
    /// - Returns: the swung position, or `position` itself when it is on a pair boundary or in the last,
    ///   incomplete pair of the bar.
    public func warp(_ position: Double, unit: Int, barBeats: Int) -> Double {
        let length = Double(unit) / Double(note)
        let pair = 2 * length
        let pairStart = (position / pair).rounded(.down) * pair
        let inPair = position - pairStart
        guard inPair > 0, pairStart + pair <= Double(barBeats) else { return position }
        let delay = amount * 2 / 3 * length
        if inPair <= length { return pairStart + inPair * (length + delay) / length }
        return pairStart + length + delay + (inPair - length) * (length - delay) / length
    }

    public var description: String { "swing \(note) \(Int((amount * 100).rounded()))%" }
}

/// Gap practice: `play` bars with the click, then `mute` bars of silence, over and over. The grid goes on through
/// the gap, so the click returns exactly where the beat should be.
///
/// Invariant: `play` ≥ 1, `mute` ≥ 1, 0 ≤ `phase` < play + mute.
public struct GapPractice: Sendable, Hashable, CustomStringConvertible {
    /// Bars played in each cycle.
    public let play: Int
    /// Bars muted after them.
    public let mute: Int
    /// Bars of the cycle already gone at the section's first bar (a section split by `--start-at`).
    public let phase: Int

    /// Creates a cycle.
    /// - Throws: `InvalidValue` when either count is below 1 or above 1000.
    public init(play: Int, mute: Int, phase: Int = 0) throws(InvalidValue) {
        guard (1...1000).contains(play), (1...1000).contains(mute) else {
            throw InvalidValue(
                value: "\(play)/\(mute)", reason: "gap practice plays and mutes from 1 to 1000 bars at a time")
        }
        self.play = play
        self.mute = mute
        self.phase = ((phase % (play + mute)) + play + mute) % (play + mute)
    }

    /// Whether bar `bar` of the section (from 0) is muted.
    public func isMuted(bar: Int64) -> Bool { (bar + Int64(phase)) % Int64(play + mute) >= Int64(play) }

    /// The same cycle for a section that starts `bars` later.
    public func advanced(by bars: Int) -> GapPractice {
        (try? GapPractice(play: play, mute: mute, phase: phase + bars)) ?? self
    }

    public var description: String { "gap play \(play) mute \(mute)" }
}

/// A polyrhythm layer: `count` clicks spread evenly over every bar, with a sound of its own (3 against the 4 beats
/// of a 4/4 bar, 3 against 2 in 2/4).
///
/// Invariant: `count` is 1...64 and `levels` has `count` entries.
public struct PolyLayer: Sendable, Hashable, CustomStringConvertible {
    /// Largest count accepted.
    public static let maximumCount = 64

    /// Clicks per bar.
    public let count: Int
    /// The click style the layer plays.
    public let sound: ClickStyle
    /// One level per click of the layer.
    public let levels: [BeatLevel]

    /// Creates a layer; the default levels accent the first click and play the others normal.
    /// - Throws: `InvalidValue` for a count outside 1...64 or a level list of another length.
    public init(count: Int, sound: ClickStyle, levels: [BeatLevel]? = nil) throws(InvalidValue) {
        guard (1...PolyLayer.maximumCount).contains(count) else {
            throw InvalidValue(value: String(count), reason: "a layer plays from 1 to 64 clicks per bar")
        }
        let levels = levels ?? [.accent] + Array(repeating: .normal, count: count - 1)
        guard levels.count == count else {
            throw InvalidValue(
                value: String(levels.map(\.letter)),
                reason: "the layer has \(count) clicks per bar but \(levels.count) letters")
        }
        self.count = count
        self.sound = sound
        self.levels = levels
    }

    public var description: String { "layer \(count) \(sound.rawValue) \(String(levels.map(\.letter)))" }
}

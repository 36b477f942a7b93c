/// The order an arpeggiator plays a chord's notes in.
///
/// The first nine are Tone.js's PatternGenerator orders with its end-note rules: `up` and `down` restart from the
/// same end (0 1 2 3 0 1 …); `upDown` and `downUp` turn at the ends without repeating them (0 1 2 3 2 1 0 1 …);
/// `alternateUp` goes up two, down one, and restarts once it would pass the top (0 2 1 3 2, 0 2 1 3 2 …);
/// `alternateDown` mirrors it from the top (3 1 2 0 1, …); `random` draws any note each step; `randomOnce` plays
/// every note once in a random order, then draws a new order; `randomWalk` starts on a random note and steps one up
/// or down at random (always up from the bottom, down from the top; like Tone.js the start itself is not played, and
/// a one-note chord just repeats its note). Ours add `asPlayed` (the order written), `converge` (outside in: lowest,
/// highest, second lowest, second highest …) and `diverge` (inside out: `converge` backwards).
public enum ArpeggioOrder: String, CaseIterable, Sendable {
    case up, down, upDown, downUp, alternateUp, alternateDown, random, randomOnce, randomWalk
    case asPlayed, converge, diverge

    /// Whether the order uses the random generator (and so `--seed`).
    public var isRandom: Bool { self == .random || self == .randomOnce || self == .randomWalk }

    /// The first `count` indices into a chord of `size` notes (sorted low to high, except for `asPlayed`, which
    /// indexes the notes as written).
    /// - Parameters:
    ///   - size: notes in the chord, at least 1.
    ///   - count: how many steps to produce.
    ///   - random: the seeded generator the random orders draw from.
    public func indices<R: RandomNumberGenerator>(size: Int, count: Int, random: inout R) -> [Int] {
        precondition(size >= 1)
        // Our own draw (not the standard library's, whose algorithm may change) keeps seeds reproducible.
        func draw(_ bound: Int, _ random: inout R) -> Int { Int(random.next() % UInt64(bound)) }
        var result: [Int] = []
        result.reserveCapacity(count)
        func cycle(_ pattern: [Int]) {
            while result.count < count { for index in pattern where result.count < count { result.append(index) } }
        }
        switch self {
        case .up, .asPlayed: cycle(Array(0..<size))
        case .down: cycle(Array((0..<size).reversed()))
        case .upDown, .downUp:
            var index = self == .upDown ? 0 : size - 1
            var upward = self == .upDown
            while result.count < count {
                index = min(max(index, 0), size - 1)
                result.append(index)
                if upward {
                    index += 1
                    if index >= size - 1 { upward = false }
                } else {
                    index -= 1
                    if index <= 0 { upward = true }
                }
            }
        case .alternateUp, .alternateDown:
            var pattern: [Int] = []
            let up = self == .alternateUp
            var index = up ? 0 : size - 1
            var step = 0
            while up ? index < size : index >= 0 {
                pattern.append(min(max(index, 0), size - 1))
                step += 1
                index += step % 2 == 1 ? (up ? 2 : -2) : (up ? -1 : 1)
            }
            cycle(pattern)
        case .random:
            while result.count < count { result.append(draw(size, &random)) }
        case .randomOnce:
            while result.count < count {
                var left = Array(0..<size)
                while !left.isEmpty, result.count < count {
                    result.append(left.remove(at: draw(left.count, &random)))
                }
            }
        case .randomWalk:
            var index = draw(size, &random)
            while result.count < count {
                if size == 1 {
                    index = 0
                } else if index == 0 {
                    index += 1
                } else if index == size - 1 {
                    index -= 1
                } else {
                    index += random.next() & 1 == 0 ? -1 : 1
                }
                result.append(index)
            }
        case .converge, .diverge:
            var pattern: [Int] = []
            var low = 0
            var high = size - 1
            while low <= high {
                pattern.append(low)
                if high != low { pattern.append(high) }
                low += 1
                high -= 1
            }
            cycle(self == .converge ? pattern : pattern.reversed())
        }
        return result
    }
}

/// A small, fast, seedable generator (SplitMix64): the same seed gives the same random arpeggio on every machine.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator from a seed.
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

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
        var cursor = ArpeggioOrderCursor(order: self, size: size)
        return (0..<count).map { _ in cursor.next(random: &random) }
    }
}

/// An order's indices one step at a time, for as long as a chord is held (a live arpeggiator's keys): the same
/// steps `ArpeggioOrder.indices(size:count:random:)` gives, drawing the same numbers from the generator, never cut
/// into blocks (a block ending mid-cycle would skip or repeat a note where it ends).
public struct ArpeggioOrderCursor: Sendable {
    public let order: ArpeggioOrder
    /// Notes in the chord, at least 1.
    public let size: Int
    /// The cycle repeated, for the orders that repeat one.
    private var pattern: [Int] = []
    /// The next step in `pattern`; for `upDown` and `downUp`, the next index.
    private var position = 0
    private var upward = true
    /// `randomOnce`: the notes not yet played in this draw. `randomWalk`: whether the start is drawn.
    private var left: [Int] = []
    private var started = false

    public init(order: ArpeggioOrder, size: Int) {
        precondition(size >= 1)
        self.order = order
        self.size = size
        switch order {
        case .up, .asPlayed: pattern = Array(0..<size)
        case .down: pattern = Array((0..<size).reversed())
        case .upDown, .downUp:
            position = order == .upDown ? 0 : size - 1
            upward = order == .upDown
        case .alternateUp, .alternateDown:
            let up = order == .alternateUp
            var index = up ? 0 : size - 1
            var step = 0
            while up ? index < size : index >= 0 {
                pattern.append(min(max(index, 0), size - 1))
                step += 1
                index += step % 2 == 1 ? (up ? 2 : -2) : (up ? -1 : 1)
            }
        case .converge, .diverge:
            var low = 0
            var high = size - 1
            while low <= high {
                pattern.append(low)
                if high != low { pattern.append(high) }
                low += 1
                high -= 1
            }
            if order == .diverge { pattern.reverse() }
        case .random, .randomOnce, .randomWalk: break
        }
    }

    /// The next step's index into the chord.
    /// - Parameter random: the seeded generator the random orders draw from.
    public mutating func next<R: RandomNumberGenerator>(random: inout R) -> Int {
        // Our own draw (not the standard library's, whose algorithm may change) keeps seeds reproducible.
        func draw(_ bound: Int, _ random: inout R) -> Int { Int(random.next() % UInt64(bound)) }
        switch order {
        case .up, .asPlayed, .down, .alternateUp, .alternateDown, .converge, .diverge:
            defer { position = (position + 1) % pattern.count }
            return pattern[position]
        case .upDown, .downUp:
            let index = min(max(position, 0), size - 1)
            position = index
            if upward {
                position += 1
                if position >= size - 1 { upward = false }
            } else {
                position -= 1
                if position <= 0 { upward = true }
            }
            return index
        case .random:
            return draw(size, &random)
        case .randomOnce:
            if left.isEmpty { left = Array(0..<size) }
            return left.remove(at: draw(left.count, &random))
        case .randomWalk:
            if !started {
                position = draw(size, &random)
                started = true
            }
            if size == 1 {
                position = 0
            } else if position == 0 {
                position += 1
            } else if position == size - 1 {
                position -= 1
            } else {
                position += random.next() & 1 == 0 ? -1 : 1
            }
            return position
        }
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

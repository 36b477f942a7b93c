import MetronomeModel

/// Ticks of a MIDI file → positions of the tempo map, for one division.
///
/// Ticks per quarter note q: a tick is 28,828,800 / q positions, rounded to the nearest position when q does not
/// divide 28,828,800 (a tie away from zero), so an event moves by at most half a position tick — 1/57,657,600 of a
/// quarter note, under 1.1 µs even at 1 BPM: its frame is the exact one, or, when the exact time lies within that
/// of halfway between two frames, the other of the two. Every common division (24, 48, 96, 120, 192, 240, 384,
/// 480, 960, …) divides it and is exact.
///
/// SMPTE, D ticks a second: the map plays at one tempo, 60 · D / Q BPM, with Q ticks a quarter note, Q a divisor
/// of 28,828,800 (so every tick is a whole number of positions and exact). Q is chosen to give the tempo nearest
/// to 120 BPM — a whole number of BPM when one exists — so the click and the bars are useful.
struct MIDITimeScale {
    /// Positions per tick: `numerator / denominator`, in lowest terms.
    let numerator: Int64
    /// See `numerator`.
    let denominator: Int64
    /// The largest tick that fits the map (`TempoMap.maximumQuarterNotes`).
    let maximumTicks: Int64
    /// The map's tempo for an SMPTE division; nil when tempo events set it.
    let smpteTempo: BPM?

    /// The scale of a division.
    /// - Throws: `InvalidValue` for a division outside the values a file can hold.
    init(_ division: MIDIDivision) throws(InvalidValue) {
        let perQuarter = Position.ticksPerQuarter
        switch division {
        case .ticksPerQuarter(let ticks):
            guard (1...0x7FFF).contains(ticks) else {
                throw InvalidValue(
                    value: "\(ticks) ticks per quarter note", reason: "a division must be from 1 to 32767 ticks")
            }
            let common = Ratio.gcd(perQuarter, Int64(ticks))
            numerator = perQuarter / common
            denominator = Int64(ticks) / common
            maximumTicks = TempoMap.maximumQuarterNotes * Int64(ticks)
            smpteTempo = nil
        case .smpte(let frames, let ticks):
            guard MIDIDivision.smpteFrameRates.contains(frames), (1...255).contains(ticks),
                let perSecond = division.ticksPerSecond
            else {
                throw InvalidValue(
                    value: "\(frames) frames per second × \(ticks) ticks",
                    reason: "SMPTE divisions are 24, 25, 29 or 30 frames per second, 1 to 255 ticks per frame")
            }
            let quarter = MIDITimeScale.smpteTicksPerQuarter(perSecond)
            numerator = perQuarter / quarter
            denominator = 1
            maximumTicks = TempoMap.maximumQuarterNotes * quarter
            smpteTempo = try BPM(Double(60 * perSecond.numerator) / Double(perSecond.denominator * quarter))
        }
    }

    /// The position of a tick.
    /// - Throws: `InvalidValue` for a tick beyond the longest map.
    func position(ofTick tick: Int64) throws(InvalidValue) -> Position {
        guard tick <= maximumTicks else {
            throw InvalidValue(
                value: "tick \(tick)",
                reason: "the file lasts longer than \(TempoMap.maximumQuarterNotes) quarter notes, the longest map")
        }
        let product = tick.multipliedFullWidth(by: numerator)
        // tick ≤ 10¹¹ quarter notes, so the quotient is at most 10¹¹ · 28,828,800 < Int64.max: no trap.
        let (quotient, remainder) = denominator.dividingFullWidth(product)
        return Position(ticks: 2 * remainder >= denominator ? quotient + 1 : quotient)
    }

    /// Q, SMPTE ticks a quarter note, for D = `perSecond` ticks a second: the divisor of 28,828,800 whose tempo
    /// 60 · D / Q lies nearest to 120 BPM as a ratio within 1...1000 BPM, preferring whole tempos.
    static func smpteTicksPerQuarter(_ perSecond: (numerator: Int64, denominator: Int64)) -> Int64 {
        let perQuarter = Position.ticksPerQuarter
        let divisors = (1...Int64(5_400)).filter { perQuarter % $0 == 0 }.flatMap { [$0, perQuarter / $0] }
        func tempo(_ quarter: Int64) -> Double {
            Double(60 * perSecond.numerator) / Double(perSecond.denominator * quarter)
        }
        let usable = divisors.filter { (1...1000).contains(tempo($0)) }
        let whole = usable.filter { (60 * perSecond.numerator) % (perSecond.denominator * $0) == 0 }
        // max(t/120, 120/t) orders tempos as |ln(t/120)| does.
        func distance(_ quarter: Int64) -> Double { max(tempo(quarter) / 120, 120 / tempo(quarter)) }
        let pool = whole.isEmpty ? usable : whole
        return pool.min { (distance($0), $0) < (distance($1), $1) }!
    }
}

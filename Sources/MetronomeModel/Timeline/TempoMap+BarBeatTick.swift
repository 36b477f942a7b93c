/// Bar, beat and tick as a transport's clients count them (JACK's BBT): what a timebase master tells the others.
public struct BarBeatTick: Sendable, Hashable {
    /// The bar, 1 for the first bar of music (count-in bars are 0, -1, …).
    public var bar: Int
    /// The beat in the bar, from 1.
    public var beat: Int
    /// Ticks into the beat, 0 ..< `ticksPerBeat`.
    public var tick: Int
    /// Ticks from the map's top to the bar's downbeat, at `ticksPerBeat` a beat of the bar's meter.
    public var barStartTick: Double
    /// The meter: beats per bar and the beat's note value (4: a quarter note).
    public var beatsPerBar: Int
    public var beatType: Int
    /// Ticks per beat (JACK's usual 1920).
    public var ticksPerBeat: Int
    /// The tempo at the position, in beats of the meter (its `beatType`) per minute.
    public var beatsPerMinute: Double

    /// Creates one from its fields.
    public init(
        bar: Int, beat: Int, tick: Int, barStartTick: Double, beatsPerBar: Int, beatType: Int, ticksPerBeat: Int,
        beatsPerMinute: Double
    ) {
        self.bar = bar
        self.beat = beat
        self.tick = tick
        self.barStartTick = barStartTick
        self.beatsPerBar = beatsPerBar
        self.beatType = beatType
        self.ticksPerBeat = ticksPerBeat
        self.beatsPerMinute = beatsPerMinute
    }
}

extension TempoMap {
    /// Bar, beat and tick at an exact frame of the map (its time from the top), nil past the end of a finite map.
    /// Allocation-free: a timebase master's process thread calls it every cycle.
    /// - Complexity: O(log segments + log sections).
    public func barBeatTick(atExactFrame frame: Double, ticksPerBeat: Int = 1920) -> BarBeatTick? {
        let position = position(atExactFrame: max(0, frame))
        guard let bar = barPosition(at: position) else { return nil }
        let meter = sections[bar.section].meter
        let perBeat = Position.ticksPerBeat(unit: meter.unit)
        let barStart = position.ticks - Int64(bar.beat) * perBeat - bar.ticksIntoBeat
        let tick = Int(Double(bar.ticksIntoBeat) / Double(perBeat) * Double(ticksPerBeat))
        return BarBeatTick(
            bar: bar.bar - firstBar + 1, beat: bar.beat + 1, tick: min(ticksPerBeat - 1, tick),
            barStartTick: Double(barStart) / Double(perBeat) * Double(ticksPerBeat), beatsPerBar: meter.beats,
            beatType: meter.unit, ticksPerBeat: ticksPerBeat,
            beatsPerMinute: tempo(at: position) * Double(meter.unit) / 4)
    }
}

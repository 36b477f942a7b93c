import RealModule

/// One piece of a tempo track: from `start` for `length` ticks (or for ever), a constant tempo, a linear ramp, or a
/// list of one tempo per beat, with its exact starting frame.
///
/// Positions inside a segment are counted in beats of a 1/`unit` note. A ramp follows klick's semantics: the tempo
/// moves linearly with the *beat position* from `from` to `to` over `beats` beats, so beat position x lies at
///
///     t(x) = 240 · N / (d · (T₁ − T₀)) · ln(1 + (T₁ − T₀) · x / (N · T₀))
///
/// seconds (d the unit, tempos in quarter notes per minute); a constant tempo gives t(x) = 240 · x / (d · T). Both
/// directions are closed forms; a per-beat list sums whole beats once, when the segment is made.
///
/// Invariant: `length` is nil only for a constant segment (the last of a track); a ramp's `beats` is positive.
public struct TempoSegment: Sendable, Hashable {
    /// How the tempo moves inside the segment.
    public enum Shape: Sendable, Hashable {
        /// One tempo throughout.
        case constant(BPM)
        /// Linear in the beat position from `from` (at the segment's start) to `to` after `beats` beats.
        case ramp(from: BPM, to: BPM, beats: Double)
        /// One tempo per beat (klick's `t1,t2,…`).
        case perBeat([BPM])
    }

    /// First position of the segment.
    public let start: Position
    /// Ticks the segment lasts, or nil when it never ends.
    public let length: Int64?
    /// Beat unit positions inside the segment are counted in (the meter's unit where the segment was made).
    public let unit: Int
    /// The tempo's course.
    public let shape: Shape
    /// Exact (unrounded) frame of `start`.
    public internal(set) var startFrame: Double
    /// Seconds from the start to each beat of a per-beat list (one more entry than beats).
    private let beatStartSeconds: [Seconds]

    /// Creates a segment.
    init(start: Position, length: Int64?, unit: Int, shape: Shape, startFrame: Double = 0) {
        self.start = start
        self.length = length
        self.unit = unit
        // A ramp between equal tempos is constant (its closed form would divide zero by zero).
        if case .ramp(let from, let to, _) = shape, from == to {
            self.shape = .constant(from)
        } else {
            self.shape = shape
        }
        self.startFrame = startFrame
        if case .perBeat(let tempos) = shape {
            var seconds: Seconds = 0
            var starts: [Seconds] = [0]
            for tempo in tempos {
                seconds += 240 / (Double(unit) * tempo.quarterNotesPerMinute)
                starts.append(seconds)
            }
            beatStartSeconds = starts
        } else {
            beatStartSeconds = []
        }
    }

    /// The position after the segment, or nil when endless.
    public var end: Position? { length.map { Position(ticks: start.ticks + $0) } }

    /// Ticks in one of the segment's beats.
    var ticksPerBeat: Int64 { Position.ticksPerBeat(unit: unit) }

    /// Frames from the start to the beat position `numerator / parts` (in the segment's beats).
    ///
    /// For a constant tempo the integer product is formed first, so simple tempos give exact results.
    /// - Complexity: O(1).
    func frames(atBeat numerator: Int64, parts: Int64, rate: Double) -> Double {
        let unit = Double(unit)
        switch shape {
        case .constant(let tempo):
            return (Double(numerator) * 240 * rate) / (tempo.quarterNotesPerMinute * unit * Double(parts))
        case .perBeat(let tempos):
            let beat = Int(numerator / parts)
            guard beat < tempos.count else { return beatStartSeconds[tempos.count] * rate }
            let fraction = Double(numerator % parts) / Double(parts)
            let beatSeconds = 240 / (unit * tempos[beat].quarterNotesPerMinute)
            return (beatStartSeconds[beat] + fraction * beatSeconds) * rate
        case .ramp(let from, let to, let span):
            let startTempo = from.quarterNotesPerMinute
            let delta = to.quarterNotesPerMinute - startTempo
            let position = Double(numerator) / Double(parts)
            let scale = 240 * span * rate / (unit * delta)
            return scale * Double.log(onePlus: delta * position / (span * startTempo))
        }
    }

    /// Frames from the start to a real beat position (a swung step, a position between ticks).
    /// - Complexity: O(1).
    func frames(atPosition position: Double, rate: Double) -> Double {
        let unit = Double(unit)
        switch shape {
        case .constant(let tempo):
            return position * 240 * rate / (tempo.quarterNotesPerMinute * unit)
        case .perBeat(let tempos):
            let beat = min(tempos.count - 1, Int(position.rounded(.down)))
            let beatSeconds = 240 / (unit * tempos[beat].quarterNotesPerMinute)
            return (beatStartSeconds[beat] + (position - Double(beat)) * beatSeconds) * rate
        case .ramp(let from, let to, let span):
            let startTempo = from.quarterNotesPerMinute
            let delta = to.quarterNotesPerMinute - startTempo
            return 240 * span * rate / (unit * delta) * Double.log(onePlus: delta * position / (span * startTempo))
        }
    }

    /// Frames from the start to `ticks` ticks into the segment (reduced to lowest terms first, so whole beats and
    /// simple fractions take the exact integer path).
    func frames(atTicks ticks: Int64, rate: Double) -> Double {
        let perBeat = ticksPerBeat
        let divisor = Ratio.gcd(ticks, perBeat)
        return frames(atBeat: ticks / divisor, parts: perBeat / divisor, rate: rate)
    }

    /// The beat position (in the segment's beats) `frames` frames after the start: the inverse closed form.
    /// - Complexity: O(1) (O(log beats) for a per-beat list).
    func beats(atFrames frames: Double, rate: Double) -> Double {
        let unit = Double(unit)
        switch shape {
        case .constant(let tempo):
            return frames * tempo.quarterNotesPerMinute * unit / (240 * rate)
        case .perBeat(let tempos):
            let seconds = frames / rate
            let low = SortedSearch.lastIndex(atOrBefore: seconds, count: tempos.count) { beatStartSeconds[$0] }
            let beatSeconds = 240 / (unit * tempos[low].quarterNotesPerMinute)
            return Double(low) + (seconds - beatStartSeconds[low]) / beatSeconds
        case .ramp(let from, let to, let span):
            let startTempo = from.quarterNotesPerMinute
            let delta = to.quarterNotesPerMinute - startTempo
            let scale = 240 * span * rate / (unit * delta)
            return Double.expMinusOne(frames / scale) * span * startTempo / delta
        }
    }

    /// Tempo (quarter notes per minute) at a beat position of the segment.
    public func tempo(atBeat beat: Double) -> Double {
        switch shape {
        case .constant(let tempo): return tempo.quarterNotesPerMinute
        case .perBeat(let tempos): return tempos[min(tempos.count - 1, max(0, Int(beat)))].quarterNotesPerMinute
        case .ramp(let from, let to, let span):
            let start = from.quarterNotesPerMinute
            return start + (to.quarterNotesPerMinute - start) * beat / span
        }
    }

    /// Tempo at `ticks` ticks into the segment.
    func tempo(atTicks ticks: Int64) -> Double { tempo(atBeat: Double(ticks) / Double(ticksPerBeat)) }

    /// Frames the whole segment lasts, or infinity when endless.
    func lengthFrames(rate: Double) -> Double {
        guard let length else { return .infinity }
        return frames(atTicks: length, rate: rate)
    }
}

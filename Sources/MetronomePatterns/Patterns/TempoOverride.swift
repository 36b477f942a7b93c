import MetronomeModel

/// A tempo given on the command line over a pattern file's own tempos.
///
/// `--bpm B` replaces every constant tempo with B. A ramp keeps its proportion and starts from B: `100-140` becomes
/// `B-(1.4·B)`. A tempo trainer starts from B and keeps its step and its distance to the limit: from 80 by +4 to 120
/// becomes from B by +4 to B + 40. A tempo-per-beat list (klick's `t1,t2,…`) is scaled by B over its first tempo.
/// `--tempo-scale F` multiplies every tempo, step and limit by F. Every result must lie in 1...1000.
public enum TempoOverride: Sendable, Hashable {
    /// The file's tempos as written.
    case none
    /// `--bpm`: this tempo wherever the file has a constant one.
    case bpm(BPM)
    /// `--tempo-scale`: every tempo times this factor.
    case scale(Double)

    /// Smallest and largest `--tempo-scale` accepted.
    public static let scaleRange = 0.1...10.0

    /// The tempo a constant section plays.
    public func constant(_ tempo: Double) -> Double {
        switch self {
        case .none: tempo
        case .bpm(let bpm): bpm.quarterNotesPerMinute
        case .scale(let factor): tempo * factor
        }
    }

    /// The two ends of a ramp.
    public func ramp(_ start: Double, _ end: Double) -> (Double, Double) {
        switch self {
        case .none: (start, end)
        case .bpm(let bpm): (bpm.quarterNotesPerMinute, bpm.quarterNotesPerMinute * end / start)
        case .scale(let factor): (start * factor, end * factor)
        }
    }

    /// A trainer's start, step and limit.
    public func trainer(start: Double, step: Double, limit: Double) -> (start: Double, step: Double, limit: Double) {
        switch self {
        case .none: (start, step, limit)
        case .bpm(let bpm): (bpm.quarterNotesPerMinute, step, bpm.quarterNotesPerMinute + limit - start)
        case .scale(let factor): (start * factor, step * factor, limit * factor)
        }
    }

    /// Applies the override to a section already built (klick maps, which have no trainers).
    /// - Throws: `InvalidValue` when a tempo falls outside 1...1000.
    public func apply(to section: TempoSection) throws(InvalidValue) -> TempoSection {
        guard self != .none else { return section }
        let name = section.label.map { "section '\($0)'" } ?? "a section"
        if let beatTempos = section.beatTempos {
            let factor: Double
            switch self {
            case .none: factor = 1
            case .bpm(let bpm): factor = bpm.quarterNotesPerMinute / beatTempos[0].quarterNotesPerMinute
            case .scale(let scale): factor = scale
            }
            var tempos: [BPM] = []
            for tempo in beatTempos { tempos.append(try checked(tempo.quarterNotesPerMinute * factor, name)) }
            return try TempoSection(
                label: section.label, bars: section.bars!, meter: section.meter, beatTempos: tempos,
                accents: section.accents, subdivision: section.subdivision, volume: section.volume)
        }
        var result = section
        if let end = section.endTempo {
            let (start, stop) = ramp(section.tempo.quarterNotesPerMinute, end.quarterNotesPerMinute)
            result.tempo = try checked(start, name)
            result.endTempo = try checked(stop, name)
        } else {
            result.tempo = try checked(constant(section.tempo.quarterNotesPerMinute), name)
        }
        return result
    }

    /// A tempo in range, or an error naming where it came from.
    func checked(_ tempo: Double, _ name: String) throws(InvalidValue) -> BPM {
        do {
            return try BPM(tempo)
        } catch {
            let rounded = (tempo * 100).rounded() / 100
            throw InvalidValue(
                value: description,
                reason: "\(name) would play at \(rounded) BPM; tempos must be from 1 to 1000")
        }
    }

    /// The override in words, for messages ("tempo 100", "tempo × 1.5").
    public var description: String {
        switch self {
        case .none: ""
        case .bpm(let bpm): "tempo \(bpm)"
        case .scale(let factor): "tempo × \(factor)"
        }
    }
}

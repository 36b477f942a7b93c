import MetronomeModel
import MetronomePatterns

/// Loads a pattern by name into a map, as `metronome serve` does for `/metronome/pattern` and klick's
/// `/klick/map/load_file`. `PatternLibrary` is the real one; a test may serve maps from memory.
public protocol PatternLoading: Sendable {
    /// A pattern's map, ready to play.
    /// - Parameters:
    ///   - name: a path, or a shipped pattern's name.
    ///   - tempoScale: every tempo times this factor (klick's `map/set_tempo_multiplier`); nil: as written.
    ///   - countIn: bars of count-in (klick's `map/set_preroll`); nil: the file's own.
    ///   - sampleRate: the session's rate.
    /// - Returns: the map.
    /// - Throws: `PatternUnavailable`, one line saying why.
    func map(named name: String, tempoScale: Double?, countIn: Int?, sampleRate: SampleRate)
        throws(PatternUnavailable) -> TempoMap
}

/// Why a pattern could not be loaded by name: one line (a positioned message's first line names the file, line and
/// column).
public struct PatternUnavailable: Error, Sendable, CustomStringConvertible {
    /// The reason, one line.
    public var description: String

    /// A reason; only its first line is kept.
    /// - Parameter reason: why.
    public init(_ reason: String) {
        description = String(reason.split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
    }
}

extension PatternLibrary: PatternLoading {
    /// Resolves the name (`document(named:)`), reads, expands and maps it.
    public func map(named name: String, tempoScale: Double?, countIn: Int?, sampleRate: SampleRate)
        throws(PatternUnavailable) -> TempoMap
    {
        let document = document(named: name)
        let score: PatternScore
        do {
            score = try document.score(tempo: tempoScale.map { .scale($0) } ?? .none)
        } catch {
            if case .pattern(.override(let problem)) = error {
                throw PatternUnavailable("the tempo multiplier \(tempoScale ?? 1): \(problem.reason)")
            }
            throw PatternUnavailable(error.description)
        }
        do {
            return try score.map(sampleRate: sampleRate, startAt: nil, subdivision: nil, countInBars: countIn)
        } catch {
            throw PatternUnavailable("\(document.path): \(error.description)")
        }
    }
}

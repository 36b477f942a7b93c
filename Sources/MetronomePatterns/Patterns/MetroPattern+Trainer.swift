import MetronomeModel

extension MetroPattern.Trainer {
    /// Steps from `start` until the tempo reaches `limit` (the step that reaches it included), saturated at
    /// `MetroPattern.maximumSections + 1` so that a tiny step cannot overflow the conversion to `Int`.
    /// - Complexity: O(1).
    static func stepsToLimit(from start: Double, step: Double, limit: Double) -> Int {
        let ratio = ((limit - start) / step).rounded(.up)
        guard ratio.isFinite, ratio <= Double(MetroPattern.maximumSections) else {
            return MetroPattern.maximumSections + 1
        }
        return max(0, Int(ratio))
    }

    /// Sections a section of `bars` × `repeats` bars with this trainer expands to, starting at `start`: one per
    /// step, and no more than its groups of `every` bars. Never overflows.
    func sectionCount(start: Double, bars: Int?, repeats: Int) -> Int {
        let steps = MetroPattern.Trainer.stepsToLimit(from: start, step: step, limit: limit) + 1
        guard let bars else { return steps }
        let total = bars.multipliedReportingOverflow(by: repeats)
        guard !total.overflow else { return steps }
        return min(steps, total.partialValue / every + (total.partialValue % every == 0 ? 0 : 1))
    }

    /// Checks that the trainer moves from `tempo` towards its limit.
    /// - Throws: `InvalidValue` when the step points away from the limit, or the limit is where it starts.
    func checkMoves(from tempo: Double) throws(InvalidValue) {
        if (step > 0 && limit <= tempo) || (step < 0 && limit >= tempo) {
            throw InvalidValue(
                value: ClauseParser.number(limit),
                reason: "the trainer never moves: it starts at \(ClauseParser.number(tempo)) and its limit is "
                    + ClauseParser.number(limit))
        }
    }
}

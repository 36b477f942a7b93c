/// Time practised over some runs.
///
/// Threads: a value; any thread.
public struct PracticeTotal: Sendable, Equatable, Codable {
    /// The song or pattern (empty for a day's or a week's total).
    public var piece: String
    /// Seconds played.
    public var seconds: Double
    /// Live runs.
    public var runs: Int
    /// The highest tempo heard, in quarter notes per minute; nil when no beat was heard.
    public var highestTempo: Double?

    /// A total of every field.
    public init(piece: String, seconds: Double, runs: Int, highestTempo: Double?) {
        self.piece = piece
        self.seconds = seconds
        self.runs = runs
        self.highestTempo = highestTempo
    }
}

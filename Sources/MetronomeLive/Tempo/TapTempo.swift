import MetronomeModel

/// Tap tempo: the tempo of the average interval between the last taps (up to `maximumTaps`), forgotten after a pause
/// of `forgetAfter`. Taps mark beats of the meter in force, so in 6/8 they mark eighth notes; the tempo is in
/// quarter notes per minute as everywhere (`interval` seconds a beat of a 1/`unit` note: 240 / (unit · interval)).
///
/// A pure value: tests drive it with host times they choose. Threads: any, one at a time.
public struct TapTempo: Sendable, Hashable {
    /// Taps whose intervals are averaged.
    public static let maximumTaps = 8
    /// A pause this long (2 s) starts a new series of taps.
    public static let forgetAfter: Int64 = 2_000_000_000

    /// The taps of the current series, oldest first (at most `maximumTaps`).
    public private(set) var taps: [HostTime] = []

    /// No taps yet.
    public init() {}

    /// Records a tap.
    /// - Parameters:
    ///   - time: when the tap happened (CLOCK_MONOTONIC).
    ///   - unit: the beat unit of the meter in force (4 for x/4, 8 for x/8).
    /// - Returns: the tempo the taps so far give, or nil after the first tap of a series, for a tap that goes back in
    ///   time (it starts a new series), or when the tempo would lie outside 1...1000 BPM.
    public mutating func tap(at time: HostTime, unit: Int) -> BPM? {
        if let last = taps.last,
            time.nanoseconds <= last.nanoseconds || time.nanoseconds - last.nanoseconds >= TapTempo.forgetAfter
        {
            taps = []
        }
        taps.append(time)
        if taps.count > TapTempo.maximumTaps { taps.removeFirst(taps.count - TapTempo.maximumTaps) }
        guard taps.count >= 2 else { return nil }
        let span = Double(taps.last!.nanoseconds - taps.first!.nanoseconds) / 1e9
        let interval = span / Double(taps.count - 1)
        return try? BPM(240 / (Double(unit) * interval))
    }
}

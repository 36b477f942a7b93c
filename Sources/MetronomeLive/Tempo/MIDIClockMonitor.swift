import MetronomeEngine
import MetronomeModel

/// What `metronome clock` shows of a MIDI clock as it arrives: the filter's tempo (steady to what the jitter allows),
/// the ticks' jitter, and Start, Continue, Stop and Song Position Pointer with the frames they arrived on.
///
/// The jitter is the tick-to-tick interval's deviation from the filter's period over the last `window` intervals
/// (1000): its spread (largest less smallest) and its 99th percentile (of the deviation's size); `jitterSeconds` is
/// the filter's own measure (the standard deviation of the ticks from its line).
///
/// A pure value: tests feed it the frames they choose. Threads: any, one at a time.
public struct MIDIClockMonitor: Sendable {
    /// A transport message as it arrived.
    public struct Event: Sendable, Hashable {
        /// The frame it arrived on.
        public var frame: SampleTime
        /// What it was: "start", "continue", "stop" or "position".
        public var kind: String
        /// The song position after it, in MIDI ticks (24 a quarter note).
        public var position: Int64
    }

    /// The clock now.
    public struct Reading: Sendable, Hashable {
        /// The tempo to show, in 0.1 BPM steps (nil before two ticks).
        public var tempo: Double?
        /// The filter's jitter: the standard deviation of the ticks from its line, in seconds.
        public var jitterSeconds: Double
        /// The spread of the intervals' deviation from the period (largest less smallest), in seconds.
        public var spreadSeconds: Double
        /// The 99th percentile of the intervals' deviation from the period (its size), in seconds.
        public var p99Seconds: Double
        /// F8s received.
        public var ticks: Int
        /// Whether the song plays.
        public var isPlaying: Bool
        /// The song position, in MIDI ticks: of the last clock while playing, where it waits while stopped.
        public var position: Int64
    }

    /// Intervals kept for the jitter figures (some 20 s at 120 BPM).
    public let window = 1000
    private var estimator: MIDIClockEstimator
    private var song = MIDIClockTransport()
    private var deviations: [Double] = []
    private var lastTick: Double?
    private var shownTempo: Double?

    /// A monitor for a server at `framesPerSecond`.
    public init(framesPerSecond: Double) { estimator = MIDIClockEstimator(framesPerSecond: framesPerSecond) }

    /// Takes a message that arrived on `frame`.
    /// - Returns: the transport event it was, or nil (a clock, or a message that changed nothing).
    /// - Complexity: O(`window`).
    public mutating func receive(_ message: MIDIMessage, at frame: SampleTime) -> Event? {
        let exact = Double(frame)
        guard message.status != 0xF8 else {
            let period = estimator.line?.period
            // After a silence (a sender stopped), the line starts again from the first tick to come.
            let silent =
                lastTick.map {
                    exact - $0 > MIDIClockEstimator.silenceSeconds * estimator.framesPerSecond + 4 * (period ?? 0)
                } ?? false
            let index = silent ? estimator.tickAfterSilence(at: exact) : estimator.tick(at: exact)
            if !silent, index != nil, let lastTick, let period {
                deviations.append(exact - lastTick - period)
                if deviations.count > window { deviations.removeFirst(deviations.count - window) }
            }
            if estimator.lastIndex != nil { lastTick = exact }
            if let tempo = estimator.quarterNotesPerMinute {
                shownTempo = MIDIClockStatus.shown(tempo, before: shownTempo)
            }
            return nil
        }
        switch song.receive(message, received: estimator.receivedIndex) {
        case .play(let anchor):
            return Event(
                frame: frame, kind: message.status == 0xFB ? "continue" : message.status == 0xF2 ? "position" : "start",
                position: anchor.position)
        case .stop(_, let position): return Event(frame: frame, kind: "stop", position: position)
        case .moved(let position): return Event(frame: frame, kind: "position", position: position)
        case nil: return nil
        }
    }

    /// The clock now.
    public var reading: Reading {
        let rate = estimator.framesPerSecond
        let sizes = deviations.map(abs).sorted()
        let p99 = sizes.isEmpty ? 0 : sizes[min(sizes.count - 1, sizes.count * 99 / 100)]
        let spread = (deviations.max() ?? 0) - (deviations.min() ?? 0)
        let last = estimator.lastIndex ?? -1
        return Reading(
            tempo: shownTempo, jitterSeconds: estimator.jitter / rate, spreadSeconds: spread / rate,
            p99Seconds: p99 / rate, ticks: estimator.counts.ticks, isPlaying: song.isPlaying,
            position: song.songTick(ofIndex: last) ?? song.waitingPosition)
    }
}

import MetronomeLive
import Synchronization

/// Bar, beat, tick, tempo and meter as a JACK timebase master gives them for a transport frame (JackPositionBBT):
/// what `--transport follow` takes its tempo and meter from.
public struct TimebasePosition: Sendable, Hashable {
    /// The transport frame these fields are for (the cycle's first frame).
    public var frame: Int64
    /// The bar, from 1.
    public var bar: Int
    /// The beat in the bar, from 1.
    public var beat: Int
    /// The tick in the beat, from 0: whole ticks, so the beat began up to one tick before `frame - tick` ticks.
    public var tick: Int
    /// Ticks in a beat.
    public var ticksPerBeat: Double
    /// The tempo, in beats of `beatType` per minute.
    public var beatsPerMinute: Double
    /// Beats in a bar (the meter's upper number).
    public var beatsPerBar: Double
    /// The beat's note value (the meter's lower number).
    public var beatType: Double

    /// Creates a position.
    /// - Parameters:
    ///   - frame: the transport frame.
    ///   - bar: the bar, from 1.
    ///   - beat: the beat in the bar, from 1.
    ///   - tick: the tick in the beat, from 0.
    ///   - ticksPerBeat: ticks in a beat.
    ///   - beatsPerMinute: beats of `beatType` per minute.
    ///   - beatsPerBar: beats in a bar.
    ///   - beatType: the beat's note value.
    public init(
        frame: Int64, bar: Int, beat: Int, tick: Int, ticksPerBeat: Double, beatsPerMinute: Double,
        beatsPerBar: Double, beatType: Double
    ) {
        self.frame = frame
        self.bar = bar
        self.beat = beat
        self.tick = tick
        self.ticksPerBeat = ticksPerBeat
        self.beatsPerMinute = beatsPerMinute
        self.beatsPerBar = beatsPerBar
        self.beatType = beatType
    }

    /// Whether the fields describe a beat grid we can follow: a positive tempo, ticks per beat and meter, a bar and
    /// beat from 1 and a tick inside its beat (a master may give anything).
    public var isUsable: Bool {
        beatsPerMinute.isFinite && beatsPerMinute > 0 && ticksPerBeat.isFinite && ticksPerBeat >= 1
            && beatsPerBar.isFinite && beatsPerBar >= 1 && beatType.isFinite && beatType >= 1 && bar >= 1 && beat >= 1
            && tick >= 0 && Double(tick) < ticksPerBeat
    }
}

/// The latest `TimebasePosition` a JACK process callback saw, handed to the session's scheduling thread without a
/// lock: a `SequenceLock` over atomics. The writer (one thread: JACK's process thread) never waits, allocates or
/// calls anything: real-time safe.
///
/// Threads: `store` from one thread at a time (the process callback); `load` from any thread.
public final class TimebaseSlot: Sendable {
    private let lock = SequenceLock()
    private let present = Atomic<Bool>(false)
    private let frame = Atomic<Int64>(0)
    private let bar = Atomic<Int>(0)
    private let beat = Atomic<Int>(0)
    private let tick = Atomic<Int>(0)
    private let ticksPerBeat = Atomic<UInt64>(0)
    private let beatsPerMinute = Atomic<UInt64>(0)
    private let beatsPerBar = Atomic<UInt64>(0)
    private let beatType = Atomic<UInt64>(0)

    /// An empty slot.
    public init() {}

    /// Publishes the master's position of this cycle, or nil when the cycle has none (no timebase master). Process
    /// thread: real-time safe (atomic stores only).
    /// - Parameter position: the position, or nil.
    public func store(_ position: TimebasePosition?) {
        lock.write {
            present.store(position != nil, ordering: .relaxed)
            guard let position else { return }
            frame.store(position.frame, ordering: .relaxed)
            bar.store(position.bar, ordering: .relaxed)
            beat.store(position.beat, ordering: .relaxed)
            tick.store(position.tick, ordering: .relaxed)
            ticksPerBeat.store(position.ticksPerBeat.bitPattern, ordering: .relaxed)
            beatsPerMinute.store(position.beatsPerMinute.bitPattern, ordering: .relaxed)
            beatsPerBar.store(position.beatsPerBar.bitPattern, ordering: .relaxed)
            beatType.store(position.beatType.bitPattern, ordering: .relaxed)
        }
    }

    /// The latest position stored, nil when the latest cycle had none, and the number of stores so far (a new
    /// number: a new cycle's position). Any thread; it may retry while a store is under way, never long.
    /// - Returns: the position (or nil) and the store count.
    public func load() -> (position: TimebasePosition?, number: UInt64) {
        let (position, number) = lock.read { () -> TimebasePosition? in
            guard present.load(ordering: .relaxed) else { return nil }
            return TimebasePosition(
                frame: frame.load(ordering: .relaxed), bar: bar.load(ordering: .relaxed),
                beat: beat.load(ordering: .relaxed), tick: tick.load(ordering: .relaxed),
                ticksPerBeat: Double(bitPattern: ticksPerBeat.load(ordering: .relaxed)),
                beatsPerMinute: Double(bitPattern: beatsPerMinute.load(ordering: .relaxed)),
                beatsPerBar: Double(bitPattern: beatsPerBar.load(ordering: .relaxed)),
                beatType: Double(bitPattern: beatType.load(ordering: .relaxed)))
        }
        return (position, number)
    }
}

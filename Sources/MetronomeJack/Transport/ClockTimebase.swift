import MetronomeLive
import MetronomeModel
import Synchronization

/// The JACK timebase master and transport led by the MIDI clock the session follows (`--follow midi-clock
/// --transport master`): a bridge that brings a drum machine's clock to every JACK transport client (Ardour,
/// Hydrogen, `jack_midi_clock`).
///
/// - Bar, beat, tick and tempo: every cycle the transport rolls, the position of the next cycle's first frame is
///   read off the beats the session scheduled (`publish`, each with its output frame, bar, beat, meter and tempo):
///   straight between the last beat at or before that frame and the next when that is scheduled already, else on
///   from the last at its tempo. So the position follows the clock as the clicks do, whatever the transport's frame
///   (which only counts frames rolled); within the beat in which the clock changes tempo it runs at the old tempo
///   until the next beat is scheduled.
/// - The transport: the clock's Start locates it to frame 0 and starts it, Continue starts it, Stop stops it, a Song
///   Position Pointer locates it to the frame of that position at the tempo followed last (120 BPM before any), each in
///   the cycle the message arrives in (JACK starts or moves the transport from the next cycle on).
/// - From a clock message until the first beat scheduled with it known is published (after a Start, a clock tick and
///   the lookahead; after a Continue from within a beat, up to a beat), the position carries no bar, beat and tick:
///   the beats from before it are no guide, and the beat it leads to has no frame yet. Each beat carries the frame of
///   the last transport message the follower had taken when it was scheduled (`publish`'s `transportThrough`), and
///   counts only when that is the last one the process thread saw: a beat scheduled on the old timeline in a pass
///   that ran while a Start arrived is left out, whenever it is published. While the clock does not lead, and until a
///   beat is published after it leads again, none either.
/// - Bars are counted as the beats say; `bar_start_tick` is the bar's ticks from the top as if every bar before it had
///   the meter at hand.
///
/// Threads: `publish` from the session's scheduling thread; `barBeatTick(atMixerFrame:)`, `clockMessage(_:at:_:_:)`
/// and `locateFrame(sixteenths:)` from the process thread (real-time safe: atomics only, and a read of the beats that
/// gives up after a few tries overlapping a store, the scheduling thread being of lower priority); the counts from any
/// thread.
public final class ClockTimebase: Sendable {
    /// Ticks in a beat, as JACK's clients usually count them.
    public static let ticksPerBeat = 1920
    /// How many reads of the beats the process thread tries before it gives the cycle no position: a store is a few
    /// nanoseconds, so only a writer preempted in the middle of one makes them all overlap.
    static let readAttempts = 4
    /// The output's frames per second.
    public let framesPerSecond: Double
    private let lock = SequenceLock()
    private let latest = Anchor()
    private let previous = Anchor()
    /// The output frame of the last clock message (Start, Continue, Stop, Song Position) the process thread saw.
    private let lastMessageFrame = Atomic<Int64>(.min)
    /// Counts the times the clock was made to lead: a beat published before the latest is no guide.
    private let leadGeneration = Atomic<Int>(0)
    private let starts = Atomic<Int>(0)
    private let stops = Atomic<Int>(0)
    private let locates = Atomic<Int>(0)
    private let positioned = Atomic<Int>(0)
    private let unpositioned = Atomic<Int>(0)
    private let leading: Atomic<Bool>

    /// A scheduled beat's fields, in atomics (`SequenceLock`).
    private struct Anchor: ~Copyable, Sendable {
        let present = Atomic<Bool>(false)
        let transportThrough = Atomic<Int64>(.min)
        let generation = Atomic<Int>(0)
        let frame = Atomic<Int64>(0)
        let bar = Atomic<Int>(0)
        let beat = Atomic<Int>(0)
        let beatsPerBar = Atomic<Int>(0)
        let beatType = Atomic<Int>(0)
        /// Beats of `beatType` per minute, as a bit pattern.
        let tempo = Atomic<UInt64>(0)
    }

    /// A scheduled beat as read back.
    private struct Beat {
        var transportThrough: Int64
        var generation: Int
        var frame: Int64
        var bar: Int
        var beat: Int
        var beatsPerBar: Int
        var beatType: Int
        var beatsPerMinute: Double

        /// Beats from bar 1's downbeat, every bar counted in this beat's meter.
        var count: Int { (bar - 1) * beatsPerBar + beat - 1 }
    }

    /// A bridge with no beat yet.
    /// - Parameters:
    ///   - framesPerSecond: the output's rate.
    ///   - leading: whether the clock leads from the start (`metronome serve`: while `/metronome/follow midi-clock`).
    public init(framesPerSecond: Double, leading: Bool = true) {
        self.framesPerSecond = framesPerSecond
        self.leading = Atomic(leading)
    }

    /// Whether the clock leads the JACK transport now: while it does not, its messages move nothing and the beats
    /// published are left out. Any thread.
    public var isLeading: Bool {
        get { leading.load(ordering: .acquiring) }
        set {
            if newValue, !leading.load(ordering: .relaxed) { leadGeneration.add(1, ordering: .relaxed) }
            leading.store(newValue, ordering: .releasing)
        }
    }

    /// Takes a beat the session has just scheduled (count-in beats are left out: JACK counts bars from 1). Scheduling
    /// thread.
    /// - Parameters:
    ///   - beat: the beat.
    ///   - clockTempo: the clock's tempo as the follower has it now (quarter notes a minute), taken for the beat's
    ///     when given: the first beat after a Start is placed before our map has the clock's tempo.
    ///   - transportThrough: the output frame of the last transport message the follower had taken when the beat was
    ///     scheduled (`MIDIClockStatus.lastTransportFrame`; nil: none yet).
    public func publish(_ beat: BeatEvent, clockTempo: Double? = nil, transportThrough: Int64? = nil) {
        let tempo = clockTempo.flatMap { $0 > 0 && $0.isFinite ? $0 : nil } ?? beat.tempo
        guard isLeading, !beat.isCountIn, beat.bar >= 1, tempo > 0, tempo.isFinite else { return }
        let generation = leadGeneration.load(ordering: .relaxed)
        let through = transportThrough ?? .min
        let moved = load(latest)
        lock.write {
            if let moved { store(moved, into: previous) }
            store(
                Beat(
                    transportThrough: through, generation: generation, frame: beat.frame, bar: beat.bar,
                    beat: beat.beat, beatsPerBar: beat.meter.beats,
                    beatType: beat.meter.unit, beatsPerMinute: tempo * Double(beat.meter.unit) / 4),
                into: latest)
        }
    }

    /// Bar, beat, tick and tempo at an output frame (the next cycle's first), from the last beat published at or
    /// before it that knows of the last clock message (the one after it when none is, counted back); nil while none
    /// is, and while the clock does not lead. Process thread: real-time safe; counted in `cycles`.
    public func barBeatTick(atMixerFrame frame: Int64) -> BarBeatTick? {
        guard isLeading else { return nil }
        let message = lastMessageFrame.load(ordering: .acquiring)
        let generation = leadGeneration.load(ordering: .relaxed)
        func current(_ beat: Beat?) -> Beat? {
            beat.flatMap { $0.transportThrough >= message && $0.generation == generation ? $0 : nil }
        }
        let read = lock.tryRead(attempts: Self.readAttempts) { (load(latest), load(previous)) }
        guard let beats = read else {
            unpositioned.add(1, ordering: .relaxed)
            return nil
        }
        var anchor: Beat?
        if let latest = current(beats.0) { anchor = latest }
        if let earlier = current(beats.1), anchor.map({ $0.frame > frame }) ?? true {
            anchor = earlier
        }
        guard let anchor else {
            unpositioned.add(1, ordering: .relaxed)
            return nil
        }
        var beatFrames = 60 * framesPerSecond / anchor.beatsPerMinute
        var beatsPerMinute = anchor.beatsPerMinute
        // The next beat scheduled already: the position runs straight between the two, at the tempo that takes it
        // from one to the next (our clicks' own), not on at the earlier's.
        if let next = current(beats.0), next.frame > frame, anchor.frame <= frame,
            next.beatsPerBar == anchor.beatsPerBar, next.count == anchor.count + 1, next.frame > anchor.frame
        {
            beatFrames = Double(next.frame - anchor.frame)
            beatsPerMinute = 60 * framesPerSecond / beatFrames
        }
        let index = Double(anchor.beat - 1) + Double(frame - anchor.frame) / beatFrames
        let perBar = Double(anchor.beatsPerBar)
        let barsOn = (index / perBar).rounded(.down)
        let bar = anchor.bar + Int(barsOn)
        guard bar >= 1 else {
            unpositioned.add(1, ordering: .relaxed)
            return nil
        }
        let inBar = index - barsOn * perBar
        let beat = min(anchor.beatsPerBar - 1, Int(inBar.rounded(.down)))
        // Ticks rounded down, a millionth of one allowed for the division's rounding (a whole tick not read as the one
        // before).
        let tick = min(
            Self.ticksPerBeat - 1,
            max(0, Int(((inBar - Double(beat)) * Double(Self.ticksPerBeat) + 1e-6).rounded(.down))))
        positioned.add(1, ordering: .relaxed)
        return BarBeatTick(
            bar: bar, beat: beat + 1, tick: tick,
            barStartTick: Double(bar - 1) * perBar * Double(Self.ticksPerBeat), beatsPerBar: anchor.beatsPerBar,
            beatType: anchor.beatType, ticksPerBeat: Self.ticksPerBeat, beatsPerMinute: beatsPerMinute)
    }

    /// What the JACK transport is to do for a clock message that arrived on `midi_in`.
    public enum Move: Sendable, Equatable {
        /// Locate to frame 0 and roll (Start).
        case startFromTop
        /// Roll on (Continue).
        case start
        /// Stop (Stop).
        case stop
        /// Locate to a frame (Song Position Pointer).
        case locate(Int64)
    }

    /// Takes a clock message from `midi_in` (0xFA, 0xFB, 0xFC, or 0xF2 with its two data bytes), arrived on output
    /// frame `frame`, and says what the transport is to do: nil for any other, and while the clock does not lead.
    /// Process thread: real-time safe.
    public func clockMessage(_ status: UInt8, at frame: Int64, _ low: UInt8 = 0, _ high: UInt8 = 0) -> Move? {
        guard isLeading else { return nil }
        let move: Move
        switch status {
        case 0xFA:
            move = .startFromTop
            starts.add(1, ordering: .relaxed)
        case 0xFB:
            move = .start
            starts.add(1, ordering: .relaxed)
        case 0xFC:
            move = .stop
            stops.add(1, ordering: .relaxed)
        case 0xF2:
            move = .locate(locateFrame(sixteenths: Int(low & 0x7F) | Int(high & 0x7F) << 7))
            locates.add(1, ordering: .relaxed)
        default: return nil
        }
        lastMessageFrame.store(frame, ordering: .releasing)
        return move
    }

    /// The transport frame of a song position (sixteenth notes from the top) at the tempo followed last, 120 quarter
    /// notes a minute before any beat. Real-time safe.
    public func locateFrame(sixteenths: Int) -> Int64 {
        let beat = lock.tryRead(attempts: Self.readAttempts) { load(latest) } ?? nil
        let quarters = beat.map { $0.beatsPerMinute * 4 / Double($0.beatType) } ?? 120
        return Int64((Double(sixteenths) * 15 / quarters * framesPerSecond).rounded())
    }

    /// Clock Starts and Continues that started the transport, Stops that stopped it, Song Positions that located it.
    public var moves: (starts: Int, stops: Int, locates: Int) {
        (starts.load(ordering: .relaxed), stops.load(ordering: .relaxed), locates.load(ordering: .relaxed))
    }

    /// Cycles the timebase callback was given a bar, beat and tick, and those given none (before a beat known, or a
    /// read that overlapped a store every time) while the clock led.
    public var cycles: (positioned: Int, unpositioned: Int) {
        (positioned.load(ordering: .relaxed), unpositioned.load(ordering: .relaxed))
    }

    /// `JACK transport: led from the MIDI clock, S starts, T stops, L locates; bar, beat and tick given in P cycles
    /// (none in U: before the first beat, or between a clock message and the first beat after it)`.
    public var reportLine: String {
        let (moves, cycles) = (self.moves, self.cycles)
        return
            "JACK transport: led from the MIDI clock, \(moves.starts) \(moves.starts == 1 ? "start" : "starts"), "
            + "\(moves.stops) \(moves.stops == 1 ? "stop" : "stops"), \(moves.locates) "
            + "\(moves.locates == 1 ? "locate" : "locates"); bar, beat and tick given in \(cycles.positioned) cycles "
            + "(none in \(cycles.unpositioned): before the first beat, or between a clock message and the first beat "
            + "after it)"
    }

    private func store(_ beat: Beat, into anchor: borrowing Anchor) {
        anchor.present.store(true, ordering: .relaxed)
        anchor.transportThrough.store(beat.transportThrough, ordering: .relaxed)
        anchor.generation.store(beat.generation, ordering: .relaxed)
        anchor.frame.store(beat.frame, ordering: .relaxed)
        anchor.bar.store(beat.bar, ordering: .relaxed)
        anchor.beat.store(beat.beat, ordering: .relaxed)
        anchor.beatsPerBar.store(beat.beatsPerBar, ordering: .relaxed)
        anchor.beatType.store(beat.beatType, ordering: .relaxed)
        anchor.tempo.store(beat.beatsPerMinute.bitPattern, ordering: .relaxed)
    }

    private func load(_ anchor: borrowing Anchor) -> Beat? {
        guard anchor.present.load(ordering: .relaxed) else { return nil }
        return Beat(
            transportThrough: anchor.transportThrough.load(ordering: .relaxed),
            generation: anchor.generation.load(ordering: .relaxed), frame: anchor.frame.load(ordering: .relaxed),
            bar: anchor.bar.load(ordering: .relaxed), beat: anchor.beat.load(ordering: .relaxed),
            beatsPerBar: anchor.beatsPerBar.load(ordering: .relaxed),
            beatType: anchor.beatType.load(ordering: .relaxed),
            beatsPerMinute: Double(bitPattern: anchor.tempo.load(ordering: .relaxed)))
    }
}

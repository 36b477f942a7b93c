import MetronomeEngine
import MetronomeModel

/// Keeps a transport locked to JACK's (`TransportLock`) on a timebase master's beats, tempo and meter
/// (`--transport follow`, klick's `-j`): the session's side of `TransportLock.timebase`.
///
/// Why not the `TempoSource` seam Link uses: a `TempoSource` tells where beats fall in host time, and the follower
/// turns that into frames through the output's clock mapping, whose fit of JACK's cycle times moves by a fraction of
/// a frame every cycle. A timebase master speaks in transport frames, and locked to the transport our output frames
/// are the transport's plus a constant (`transportOffset`, fixed by the lock's seek), so this follower stays in
/// frames: nothing is converted through a clock.
///
/// Where the master's beats are: the master gives, each cycle, bar, beat and whole ticks for the cycle's first frame,
/// so one cycle says only that its beat began in the tick before (`frame - (tick + 1)` ticks, `frame - tick`
/// ticks]. Every cycle at the same tempo and meter narrows that interval (each one is intersected with the ones
/// before, carried to the frame of the master's bar 1 beat 1 on a steady grid); a new tempo or meter starts afresh, and
/// so do two cycles in a row that do not fit (one alone is JACK's stale copy of a position the master was late to
/// rewrite: the cycle before's bar, beat and tick under this cycle's frame). A master with 1920 ticks a beat (klick)
/// leaves a tick's uncertainty (15.5 frames at 97 BPM and 48 kHz) after one cycle and under a frame after some ten
/// cycles of 1024 frames.
///
/// Every scheduler pass it looks at the first beat of ours not yet scheduled, and the master's beat nearest to it
/// (the next one, if that one's frame is already scheduled):
/// - our beat outside the interval the master allows for that beat (widened by half a frame) is re-anchored there
///   (`.align`, onto the interval's middle), so it never jumps back over a scheduled click; so is one inside it
///   heard on another frame than the middle once the interval is no wider than a frame, unless the middle's frame
///   is already scheduled (then our beat stays inside the widened interval: up to two frames from a master that
///   truncates its beat's frame; otherwise within one); while the interval is wider than a frame and the beat more
///   than a few scheduling passes ahead (`margin`), it waits for later cycles to narrow it;
/// - if our bar is not the master's there (another meter, or another beat of the bar), the position put on the
///   master's beat is instead the same beat of the bar from our next downbeat (this beat, if it is one), with the
///   master's meter from that downbeat (`.changeClicks` taking effect inside the bar before it): the rest of our bar
///   is left out, and from then on our bars are the master's. At the start the master's first cycle comes before
///   our first beat is scheduled, so a meter from the top is ours from bar 1; a meter change in a run is seen in
///   the cycle its bar starts, when our downbeat there is already scheduled as a beat of the old bar;
/// - a tempo of our map there other than the master's (in quarter notes per minute: its beats per minute times 4
///   over its beat type) is set from that position (`.setTempo`).
///
/// A tempo change of the master moves only beats not yet scheduled: one that comes less than a lookahead before a
/// beat of ours leaves that beat where the old tempo put it (a change on a beat, klick's map changes on bars, puts
/// that beat on both grids). Without a master (no position in the cycle), nothing is sent: the map plays its own
/// tempo and meter, as `--transport start-stop` does.
///
/// Threads: the session's scheduling thread only.
public struct TimebaseFollower: Sendable {
    /// The master's grid at one tempo and meter: the frame of its bar 1 beat 1 on that grid, in (`low`, `high`].
    struct Grid: Equatable {
        var beatsPerMinute: Double
        var ticksPerBeat: Double
        var beatsPerBar: Double
        var beatType: Double
        var low: Double
        var high: Double
        /// Transport frames per beat of the master.
        var beatFrames: Double

        /// Whether `other` is at this grid's tempo, ticks a beat and meter.
        func hasShape(of other: Grid) -> Bool {
            beatsPerMinute == other.beatsPerMinute && ticksPerBeat == other.ticksPerBeat
                && beatsPerBar == other.beatsPerBar && beatType == other.beatType
        }

        /// This grid narrowed by `other`'s interval, or nil when the two intervals do not meet.
        func narrowed(to other: Grid) -> Grid? {
            guard max(low, other.low) < min(high, other.high) else { return nil }
            var grid = self
            grid.low = max(low, other.low)
            grid.high = min(high, other.high)
            return grid
        }
    }

    private var grid: Grid?
    /// A grid at `grid`'s tempo and meter that the latest position started and `grid` did not fit: taken if the next
    /// position fits it, dropped if that one fits `grid`.
    private var candidate: Grid?
    /// The latest position the master gave (nil: the latest cycle had none).
    public private(set) var master: TimebasePosition?
    /// The last position a master gave, kept after it has gone (nil: none ever did).
    public private(set) var lastMaster: TimebasePosition?
    private var lastNumber: UInt64?
    /// The beat commands were last sent for: they apply when it is scheduled, so it is not looked at again.
    private var lastBeat: Position?

    /// Not following anything yet.
    public init() {}

    /// Takes the position of the latest cycle (`TimebaseSlot.load`).
    /// - Parameters:
    ///   - position: the master's position, or nil when the cycle had none.
    ///   - number: the slot's store count: a number seen before is the same cycle, and nothing is learned.
    ///   - framesPerSecond: the transport's sample rate.
    public mutating func observe(_ position: TimebasePosition?, number: UInt64, framesPerSecond: Int) {
        guard number != lastNumber else { return }
        lastNumber = number
        guard let position, position.isUsable else {
            master = nil
            grid = nil
            candidate = nil
            return
        }
        master = position
        lastMaster = position
        let tickFrames = Double(framesPerSecond) * 60 / (position.beatsPerMinute * position.ticksPerBeat)
        let beats = Double(position.bar - 1) * position.beatsPerBar + Double(position.beat - 1)
        let ticks = beats * position.ticksPerBeat + Double(position.tick)
        let low = Double(position.frame) - (ticks + 1) * tickFrames
        let high = Double(position.frame) - ticks * tickFrames
        let fresh = Grid(
            beatsPerMinute: position.beatsPerMinute, ticksPerBeat: position.ticksPerBeat,
            beatsPerBar: position.beatsPerBar, beatType: position.beatType, low: low, high: high,
            beatFrames: tickFrames * position.ticksPerBeat)
        if let grid, grid.hasShape(of: fresh) {
            if let narrowed = grid.narrowed(to: fresh) {
                self.grid = narrowed
                candidate = nil
                return
            }
            // At the same tempo and meter, a position off the grid is taken only when the next one agrees with it:
            // JACK's copy of a position the master did not rewrite in time carries the bar, beat and tick of the
            // cycle before under this cycle's frame, a period off, for that one cycle (CI at 99622b7: a beat of
            // ours moved a period late and the next moved back, following a master whose cycle was late).
            if let confirmed = candidate?.narrowed(to: fresh) {
                self.grid = confirmed
                candidate = nil
                lastBeat = nil
            } else {
                candidate = fresh
            }
            return
        }
        // A new tempo or meter (or the first position): a beat whose commands were sent on the old grid is looked at
        // again.
        lastBeat = nil
        grid = fresh
        candidate = nil
    }

    /// The transport commands that put the next unscheduled beat on the master's grid, with its tempo and meter.
    /// - Parameters:
    ///   - transport: the scheduler's transport.
    ///   - scheduledUntil: the first output frame not yet scheduled.
    ///   - transportOffset: the transport frame minus the output frame (fixed by the lock's last seek).
    ///   - margin: how far ahead of the first unscheduled frame the beat's commands must go (a few scheduling
    ///     passes): until then, they wait for the master's interval to narrow to a frame.
    /// - Returns: commands with their quantization, in the order they are to be sent (empty without a master).
    /// - Complexity: O(log segments) of the tempo map.
    public mutating func commands(
        transport: Transport, scheduledUntil: SampleTime, transportOffset: Int64, margin: SampleTime
    ) -> [(TransportCommand, Quantization?)] {
        guard let grid, transport.run != nil else { return [] }
        let map = transport.map
        guard let here = transport.firstPosition(atOrAfter: scheduledUntil),
            let beat = map.nextBeat(atOrAfter: here), beat != lastBeat, beat != map.endPosition,
            let frame = transport.exactOutputFrame(of: beat)
        else { return [] }
        var commands: [(TransportCommand, Quantization?)] = []
        let offset = Double(transportOffset)
        let middle = (grid.low + grid.high) / 2
        let heard = frame + offset
        var index = ((heard - middle) / grid.beatFrames).rounded()
        // A frame is heard where it rounds to (as the scheduler places a click): one from half a frame before the
        // first unscheduled frame is still to come. Only a master's beat heard on a frame already scheduled is
        // given up for its next one.
        let heardFrame = { (exact: Double) in exact.rounded(.toNearestOrAwayFromZero) }
        // Outside the master's interval (widened by half a frame), our beat moves. Inside it, it stays, unless the
        // interval is no wider than a frame and our beat is heard on another frame than its middle, still to come
        // (and not a rounding's flicker: the two a millionth of a frame apart at most stay as they are):
        // kept anywhere in the widened interval, it could be heard two frames after a master that truncates its
        // beat's frame (klick: docs/benchmarks.md, "JACK beside the other lanes, a fifth time"), where the middle's
        // frame is within one. (A middle heard on a frame already scheduled leaves our beat where it is, within the
        // interval, rather than give it up.)
        let masterBeat = middle + index * grid.beatFrames
        var moves =
            heard <= grid.low + index * grid.beatFrames - 0.5 || heard > grid.high + index * grid.beatFrames + 0.5
            || (grid.high - grid.low <= 1 && heardFrame(heard) != heardFrame(masterBeat)
                && abs(heard - masterBeat) > 1e-6
                && heardFrame(min(masterBeat - offset, frame)) >= Double(scheduledUntil))
        var target = moves ? masterBeat - offset : frame
        if heardFrame(min(target, frame)) < Double(scheduledUntil) {
            index += 1
            target = middle + index * grid.beatFrames - offset
            moves = true
        }
        guard heardFrame(min(target, frame)) >= Double(scheduledUntil) else { return [] }
        let at = max(scheduledUntil, SampleTime(min(target, frame).rounded(.down)))
        // While the master's interval is wider than a frame and the beat is further than `margin` off, later cycles
        // may narrow it: wait for them.
        if grid.high - grid.low > 1, at - scheduledUntil > margin { return [] }
        // The position of ours heard on the master's beat: this beat, unless our bar is not the master's (another
        // meter, or another beat of the bar), then the master's beat of the bar on our next downbeat (this one, if it
        // is a downbeat), in the master's meter from there: the rest of our bar is left out.
        var position = beat
        if let meter = try? Meter(beats: Int(grid.beatsPerBar.rounded()), unit: Int(grid.beatType.rounded())),
            Double(meter.beats) == grid.beatsPerBar, let place = map.barPosition(at: beat)
        {
            let beats = Double(meter.beats)
            let inBar = Int(index - (index / beats).rounded(.down) * beats)
            let ours = map.sections[place.section].meter
            if ours != meter || place.beat != inBar || place.ticksIntoBeat != 0 {
                let downbeat =
                    place.beat == 0 && place.ticksIntoBeat == 0
                    ? beat : map.nextBar(atOrAfter: Position(ticks: beat.ticks + 1))
                guard let downbeat, downbeat != map.endPosition else { return [] }
                if ours != meter {
                    // Taking effect inside the bar before `downbeat` (or on it), the meter starts on `downbeat`.
                    commands.append((.changeClicks(TempoMap.ClickChange(meter: meter)), .frame(at)))
                }
                position = Position(ticks: downbeat.ticks + Int64(inBar) * Position.ticksPerBeat(unit: meter.unit))
            }
        }
        if position != beat || moves { commands.append((.align(position, frame: target), .frame(at))) }
        let quarters = grid.beatsPerMinute * 4 / grid.beatType
        if abs(map.tempo(at: position) - quarters) > 1e-9 {
            commands.append((.setTempo(BPM.clamping(quarters)), .position(position)))
        }
        if !commands.isEmpty { lastBeat = beat }
        return commands
    }
}

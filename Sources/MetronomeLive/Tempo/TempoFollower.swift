import MetronomeEngine
import MetronomeModel

/// Keeps a transport on an external source's beat timeline: the session's side of the `TempoSource` seam.
///
/// Every scheduler pass it looks at the first beat of ours not yet scheduled and asks the source when that beat is
/// heard. Our quarter notes and the source's beats differ by a constant (`beatOffset`), chosen when following starts
/// so that our bar downbeats fall on multiples of the source's quantum (the phase a Link session agrees on), the
/// nearer way. If the source's tempo differs from ours at that beat, the tempo changes there (`.setTempo`, from the
/// beat on); if the beat would be heard more than `tolerance` frames away from the source's time for it, the
/// transport is re-anchored so it is heard there (`.align`), quantized to a frame before both, so nothing already
/// scheduled moves and nothing sounds twice. When the source's time for the beat is already scheduled past, the next
/// beat is taken instead. Wall time decides when to compute; frames come from the output's clock mapping.
///
/// Threads: the session's scheduling thread only.
public struct TempoFollower {
    /// The source followed.
    public let source: TempoSource
    /// The source's beat minus our quarter notes, fixed by the first alignment; nil before.
    public private(set) var beatOffset: Double?
    /// The beat commands were last sent for: they apply when it is scheduled, so it is not looked at again.
    private var lastBeat: Position?
    /// How far (in frames) a beat may be heard from the source's time before the transport is re-anchored: a
    /// clock fit's jitter stays under it, and it is under a millisecond at every rate.
    public static let tolerance: Double = 2

    /// Starts following.
    /// - Parameter source: the external clock.
    public init(source: TempoSource) { self.source = source }

    /// The transport commands that bring the next unscheduled beat onto the source's timeline.
    /// - Parameters:
    ///   - transport: the scheduler's transport.
    ///   - scheduledUntil: the first frame not yet scheduled.
    ///   - mapping: when each output frame is heard.
    ///   - now: the instant the pass plans from.
    /// - Returns: commands with their quantization, in the order they are to be sent (empty when nothing is due).
    /// - Complexity: O(log segments) of the tempo map.
    public mutating func commands(
        transport: Transport, scheduledUntil: SampleTime, mapping: ClockMapping, now: HostTime
    ) -> [(TransportCommand, Quantization?)] {
        guard transport.run != nil, let timeline = source.timeline(at: now) else { return [] }
        let map = transport.map
        guard let here = transport.firstPosition(atOrAfter: scheduledUntil),
            let beat = map.nextBeat(atOrAfter: here), beat != lastBeat,
            let frame = transport.exactOutputFrame(of: beat)
        else { return [] }
        let quarters = Double(beat.ticks) / Double(Position.ticksPerQuarter)
        let offset =
            beatOffset
            ?? Self.phaseOffset(
                of: beat, quarters: quarters, frame: frame, on: map, timeline: timeline, mapping: mapping)
        beatOffset = offset
        let target = mapping.exactFrame(at: timeline.hostTime(ofBeat: quarters + offset))
        // The transport takes its commands in the order sent: the alignment first (it is due at the earlier frame),
        // then the tempo from the beat on, which the alignment has just placed.
        var commands: [(TransportCommand, Quantization?)] = []
        if abs(target - frame) > Self.tolerance {
            let at = SampleTime(min(target, frame).rounded(.down))
            if at >= scheduledUntil { commands.append((.align(beat, frame: target), .frame(at))) }
        }
        if abs(timeline.tempo.quarterNotesPerMinute - map.tempo(at: beat)) > 1e-9 {
            commands.append((.setTempo(timeline.tempo), .position(beat)))
        }
        if !commands.isEmpty { lastBeat = beat }
        return commands
    }

    /// The offset that puts the downbeat of `beat`'s bar on a multiple of the quantum, nearest to the source's beat
    /// heard at `frame`.
    static func phaseOffset(
        of beat: Position, quarters: Double, frame: Double, on map: TempoMap, timeline: BeatTimeline,
        mapping: ClockMapping
    ) -> Double {
        let heard = timeline.beat(at: mapping.hostTime(ofFrame: SampleTime(frame.rounded())))
        let downbeat = map.barPosition(at: beat).flatMap { map.position(ofBar: $0.bar) } ?? beat
        let downbeatQuarters = Double(downbeat.ticks) / Double(Position.ticksPerQuarter)
        let quantum = timeline.quantum
        return -downbeatQuarters + quantum * ((heard - quarters + downbeatQuarters) / quantum).rounded()
    }
}

import MetronomeEngine
import MetronomeJack
import MetronomeModel
import Testing

/// `TimebaseFollower` on a virtual clock: a master in 4/4 with klick's 1920 ticks a beat, its bar 1 beat 1 on transport
/// frame 0, and our map at the master's tempo playing from output frame 0.
@Suite("Following a JACK timebase master: the beat nearest the first unscheduled frame")
struct TimebaseFollowerTests {
    /// A follower that has seen the master at `tempo`, its bar 1 beat 1 at transport frame `start`, at the start of
    /// each of 40 cycles of 1024 frames (a cycle before the master's start is not usable, and left out): with the start
    /// on frame 0, its interval for the master's bar 1 beat 1 is narrower than a frame (at 120, whose tick is 12.5
    /// frames, (-0.5, 0]).
    static func follower(tempo: Double, masterAt start: Double = 0) -> TimebaseFollower {
        var follower = TimebaseFollower()
        let tickFrames = 48_000 * 60 / tempo / 1920
        for cycle in 0..<40 {
            let frame = Int64(cycle * 1024)
            let ticks = Int(((Double(frame) - start) / tickFrames).rounded(.down))
            let beats = ticks / 1920
            let position = TimebasePosition(
                frame: frame, bar: beats / 4 + 1, beat: beats % 4 + 1, tick: ticks % 1920, ticksPerBeat: 1920,
                beatsPerMinute: tempo, beatsPerBar: 4, beatType: 4)
            follower.observe(position, number: UInt64(cycle + 1), framesPerSecond: 48_000)
        }
        return follower
    }

    /// The one command sent, an `.align`: its position, frame and quantization; nil (with an issue recorded) when
    /// the commands are anything else.
    static func onlyAlign(
        _ commands: [(TransportCommand, Quantization?)], sourceLocation: SourceLocation = #_sourceLocation
    ) -> (position: Position, frame: Double, quantization: Quantization?)? {
        guard commands.count == 1, case .align(let position, let frame) = commands[0].0 else {
            Issue.record("not one align: \(commands)", sourceLocation: sourceLocation)
            return nil
        }
        return (position, frame, commands[0].1)
    }

    /// Our transport at `tempo` in 4/4, running from output frame 0.
    static func transport(tempo: Double) throws -> Transport {
        var transport = Transport(map: try TempoMap.steady(tempo: .of(tempo)))
        transport.send(.play, at: .now)
        let due = try #require(transport.nextDue(now: 0))
        transport.applyNext(frame: due.frame, position: due.position)
        return transport
    }

    @Test(
        "Our beat on the master's, its exact frame half a frame or less before the first unscheduled frame (so heard on it): nothing is sent, the click is not given up for the master's next beat"
    )
    func beatHeardOnTheFirstUnscheduledFrameStays() throws {
        var follower = Self.follower(tempo: 140)
        let transport = try Self.transport(tempo: 140)
        // At 140, beat 2 lies at 41 142.857 and is heard at 41 143, the first frame not yet scheduled.
        let commands = follower.commands(
            transport: transport, scheduledUntil: 41_143, transportOffset: 0, margin: 4_096)
        #expect(commands.isEmpty, "\(commands)")
    }

    @Test(
        "Our beat 2 frames after the master's, whose beat is heard on the first unscheduled frame (its exact frame just before it): our beat is moved onto it, from that frame, not to the master's next beat"
    )
    func masterBeatHeardOnTheFirstUnscheduledFrameIsTaken() throws {
        var follower = Self.follower(tempo: 120)
        let transport = try Self.transport(tempo: 120)
        // At 120, transport frames ours plus 2: the master's beat 2 (the middle of its interval, 47 999.75, on the
        // transport) is our 47 997.75, heard at 47 998; our beat 2 is at 48 000.
        let commands = follower.commands(
            transport: transport, scheduledUntil: 47_998, transportOffset: 2, margin: 4_096)
        guard let (position, frame, quantization) = Self.onlyAlign(commands) else { return }
        #expect(position == Position(ticks: 2 * Position.ticksPerBeat(unit: 4)))
        #expect(frame == 47_997.75)
        #expect(quantization == .frame(47_998))
    }

    /// The master's position at transport frame `frame` at 120 BPM in 4/4 (1920 ticks a beat, bar 1 beat 1 on frame 0
    /// moved by `shift` frames), as a cycle starting there gives it.
    static func position(at frame: Int64, shift: Int64 = 0) -> TimebasePosition {
        let ticks = Int((Double(frame - shift) / 12.5).rounded(.down))
        let beats = ticks / 1920
        return TimebasePosition(
            frame: frame, bar: beats / 4 + 1, beat: beats % 4 + 1, tick: ticks % 1920, ticksPerBeat: 1920,
            beatsPerMinute: 120, beatsPerBar: 4, beatType: 4)
    }

    @Test(
        "One cycle carrying the cycle before's bar, beat and tick under its own frame (JACK's copy of a position the master was late to rewrite) moves nothing: our beats on the master's stay, before and after the next cycle"
    )
    func aStaleCycleMovesNothing() throws {
        var follower = Self.follower(tempo: 120)
        let transport = try Self.transport(tempo: 120)
        // Cycle 40 (frame 40 960) with cycle 39's position: a period (1024 frames) off the grid. Our beat 3 (48 000)
        // is within the margin of the first unscheduled frame: a grid moved would move it at once.
        var stale = Self.position(at: 39 * 1024)
        stale.frame = 40 * 1024
        follower.observe(stale, number: 41, framesPerSecond: 48_000)
        let afterStale = follower.commands(
            transport: transport, scheduledUntil: 45_000, transportOffset: 0, margin: 4_096)
        #expect(afterStale.isEmpty, "\(afterStale)")
        follower.observe(Self.position(at: 41 * 1024), number: 42, framesPerSecond: 48_000)
        let afterNext = follower.commands(
            transport: transport, scheduledUntil: 45_000, transportOffset: 0, margin: 4_096)
        #expect(afterNext.isEmpty, "\(afterNext)")
    }

    @Test(
        "A master whose beats move by 300 frames at the same tempo, said by two cycles in a row: our next unscheduled beat is put on the new grid"
    )
    func aPhaseMoveSaidTwiceIsFollowed() throws {
        var follower = Self.follower(tempo: 120)
        let transport = try Self.transport(tempo: 120)
        follower.observe(Self.position(at: 40 * 1024, shift: 300), number: 41, framesPerSecond: 48_000)
        follower.observe(Self.position(at: 41 * 1024, shift: 300), number: 42, framesPerSecond: 48_000)
        // Two cycles leave the new interval wider than a frame: our beat 3 (48 000) within the margin of the first
        // unscheduled frame is moved at once.
        let commands = follower.commands(
            transport: transport, scheduledUntil: 45_000, transportOffset: 0, margin: 4_096)
        guard let (position, frame, _) = Self.onlyAlign(commands) else { return }
        // Our beat 3 (frame 48 000) onto the master's, 300 frames later, within its interval's tick.
        #expect(position == Position(ticks: 2 * Position.ticksPerBeat(unit: 4)))
        #expect(abs(frame - 48_300) <= 12.5, "\(frame)")
    }

    @Test(
        "Our beat heard a frame after the master's middle, inside the interval widened by half a frame: once the interval is no wider than a frame, it is moved onto the frame the middle is heard on (kept there, it could be heard two frames after klick's beat)"
    )
    func beatOnAnotherFrameThanTheMiddleIsMoved() throws {
        // The master's bar 1 beat 1 at transport frame 0.2: after its 39 usable cycles the interval is (0, 0.5], its
        // beat 3 at 48 000.25 (heard at 48 000) by the middle. Ours a frame later on the transport: heard at 48 001,
        // within the interval's high end and half a frame.
        var follower = Self.follower(tempo: 120, masterAt: 0.2)
        let commands = follower.commands(
            transport: try Self.transport(tempo: 120), scheduledUntil: 45_000, transportOffset: 1, margin: 4_096)
        guard let (position, frame, quantization) = Self.onlyAlign(commands) else { return }
        #expect(position == Position(ticks: 2 * Position.ticksPerBeat(unit: 4)))
        #expect(frame == 47_999.25)
        #expect(quantization == .frame(47_999))
        // On the middle's frame (a fresh follower: one that has sent commands for a beat does not look at it again),
        // our beat stays.
        var onIt = Self.follower(tempo: 120, masterAt: 0.2)
        let again = onIt.commands(
            transport: try Self.transport(tempo: 120), scheduledUntil: 45_000, transportOffset: 0, margin: 4_096)
        #expect(again.isEmpty, "\(again)")
    }
}

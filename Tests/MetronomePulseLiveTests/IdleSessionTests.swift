import Foundation
import MetronomeEngine
import MetronomeLive
import MetronomeModel
import MetronomeMusic
import MetronomePulse
import MetronomeTestSupport
import Testing

@Suite("A stopped live session naps; what comes wakes it", .serialized)
struct IdleSessionTests {
    @Test("Stopped for 2 s: a few timer wake-ups, not 200; .play then starts within two timer periods of the lookahead")
    func napsWhileStopped() throws {
        let server = try PulseServer()
        let engine = try Session(
            map: try TempoMap.steady(tempo: BPM(120)), clicks: ClickSynthesizer.clickSet(.wood, sampleRate: .standard),
            configuration: try MixerConfiguration(), playing: false)
        engine.start(output: nil)
        let output = try PulseOutput(mixer: engine.mixer, server: server.address, latency: .milliseconds(20))
        engine.attach(output: output)
        defer {
            engine.stop()
            output.close()
        }
        usleep(300_000)
        let before = engine.tickCount
        usleep(2_000_000)
        let napping = engine.tickCount - before
        // A second's nap at a time: 2 or 3 wake-ups (the timer's period is 10 ms: 200 without the nap).
        #expect(napping <= 4, "\(napping) wake-ups in 2 s")
        let sent = engine.mixer.framePosition
        engine.send(.play)
        usleep(100_000)
        let applied = try #require(engine.appliedCommands.last)
        #expect(applied.command == .play)
        // Applied at the frame a tick would give: the mixer's position then plus the lookahead less a period, give
        // or take the few milliseconds the wake-up takes — not a second later.
        #expect(applied.frame - sent < engine.lookahead + 2 * 480, "play at \(applied.frame - sent) frames")
        #expect(engine.mixer.lateEventCount == 0)
    }

    @Test("A live note held when the session stops is released on a frame still to come: no late event")
    func heldNoteReleasedAtStop() throws {
        let server = try PulseServer()
        let map = try TempoMap.steady(tempo: BPM(30))
        let engine = try Session(
            map: map, clicks: ClickSynthesizer.clickSet(.wood, sampleRate: .standard),
            configuration: try MixerConfiguration())
        let player = NotePlayer(
            tracks: [.init(bank: InstrumentSynthesizer.bank(.organ, sampleRate: .standard))], source: NoteBatches([]),
            sampleRate: .standard)
        try engine.add(player)
        engine.start(output: nil)
        let output = try PulseOutput(mixer: engine.mixer, server: server.address, latency: .milliseconds(20))
        engine.attach(output: output)
        usleep(300_000)
        player.queue.noteOn(60, velocity: 100, at: 0)
        player.queue.commit()
        engine.wake()
        // At 30 BPM the timer sleeps most of the 2 s between beats: the stop comes in the middle of a nap.
        usleep(700_000)
        engine.stop()
        usleep(200_000)
        output.drain()
        output.close()
        #expect(engine.mixer.lateEventCount == 0)
    }
}

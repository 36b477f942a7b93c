import Foundation
import MetronomeEngine
import MetronomeLink
import MetronomeLive
import MetronomeModel
import MetronomeMusic
import MetronomePulse
import MetronomeTestSupport
import Testing

/// Link switched off, in this test process and so in the machine's own network namespace: a `LinkSession` here is
/// created and followed but never enabled (the network rule), which is what `metronome serve` does without `--link`.
@Suite("Link off: no socket, and a session following it naps as one following nothing", .serialized)
struct LinkOffTests {
    /// The sockets this process has open (`/proc/self/fd` links to `socket:[inode]`).
    static func openSockets() throws -> Set<String> {
        let directory = "/proc/self/fd"
        var sockets = Set<String>()
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\(name)"),
                target.hasPrefix("socket:")
            else { continue }
            sockets.insert(target)
        }
        return sockets
    }

    @Test("Created and followed, never enabled: Link opens no socket, and the stopped session wakes a few times in 2 s, not 200")
    func offOpensNothingAndNaps() throws {
        let before = try Self.openSockets()
        let link = try LinkSession(tempo: 120, quantum: 4)
        let engine = try Session(
            map: try TempoMap.steady(tempo: BPM(120)), clicks: ClickSynthesizer.clickSet(.wood, sampleRate: .standard),
            configuration: try MixerConfiguration(), playing: false)
        engine.follow(link)
        usleep(200_000)
        #expect(try Self.openSockets().subtracting(before).isEmpty)
        #expect(!link.isEnabled)
        let server = try PulseServer()
        engine.start(output: nil)
        let output = try PulseOutput(mixer: engine.mixer, server: server.address, latency: .milliseconds(20))
        engine.attach(output: output)
        defer {
            engine.stop()
            output.close()
        }
        usleep(300_000)
        let ticks = engine.tickCount
        usleep(2_000_000)
        let napping = engine.tickCount - ticks
        // As `IdleSessionTests.napsWhileStopped` without a source: a second's nap at a time. Before the session
        // asked its source whether it is on, following made every 10 ms period a wake-up (200 in 2 s).
        #expect(napping <= 4, "\(napping) wake-ups in 2 s")
    }
}

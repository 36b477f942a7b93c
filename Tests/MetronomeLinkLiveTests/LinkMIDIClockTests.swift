import Foundation
import MetronomeTestSupport
import Testing

/// Two hops: a MIDI clock leads us through JACK (`--follow midi-clock`), and we lead a Link session (`--link`) that a
/// Link peer in the test's network namespace follows. The clock's sender (Tests/MetronomeJackLiveTests/Peers/
/// jack_clock_sender.py) logs the ideal frame of every tick; the peer (Peers/link_clock_watch.py) logs the session's
/// timeline and the JACK server's frame clock, both on Link's clock, so each beat of the clock is compared with the
/// session's time for it.
@Suite("Link led from a MIDI clock: a peer follows us while we follow the clock", .serialized)
struct LinkMIDIClockTests {
    static let sender = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../MetronomeJackLiveTests/Peers/jack_clock_sender.py").standardized.path

    /// The session beat (of the peer's quantum) a Link timeline sample gives at `micros`, and the sample's tempo.
    struct Timeline {
        var micros: Double
        var beat: Double
        var tempo: Double
        func beat(at time: Double) -> Double { beat + (time - micros) * tempo / 60e6 }
    }

    @Test(
        "A clock at 120 BPM with ±1 ms of jitter, Start at 1 s, led into Link: from the fifth beat the peer's session hears every beat of the clock within 1 ms of its ideal instant (phase in a bar of 4), at 120 BPM within 0.05; one peer at the end"
    )
    func peerFollowsTheClock() throws {
        let lab = try LinkLab()
        let namespace = lab.namespace
        let jackName = "metronome-link-clock-\(getpid())"
        let jack = try namespace.start(
            "/usr/bin/jackd", ["-n", jackName, "-R", "-d", "dummy", "-r", "48000", "-p", "256"])
        defer {
            jack.send(SIGTERM)
            _ = jack.wait()
        }
        var environment = ProcessInfo.processInfo.environment
        environment["JACK_DEFAULT_SERVER"] = jackName
        environment["JACK_NO_START_SERVER"] = "1"
        func hasPort(_ port: String) -> Bool {
            let listed = try? ChildProcess("/usr/bin/stdbuf", ["-oL", "/usr/bin/jack_lsp"], environment: environment)
                .wait(killingAfter: 3)
            return listed?.standardOutput.split(separator: "\n").contains { $0 == port } ?? false
        }
        // At most 100 listings (about 35 ms each), 50 ms apart, until one shows the port.
        for _ in 0..<100 { if hasPort("system:playback_1") { break } else { usleep(50_000) } }
        let watch = try namespace.start(
            "/usr/bin/env", ["python3", "\(LinkLab.peers)/link_clock_watch.py", jackName, "11"],
            environment: environment)
        usleep(1_000_000)
        let ours = try namespace.start(
            CommandRunner.executable,
            ["120", "--driver", "jack", "--no-connect", "--follow", "midi-clock", "--link", "--verbose"],
            environment: environment)
        // At most 100 listings (about 35 ms each), 50 ms apart, until one shows the port.
        for _ in 0..<100 { if hasPort("metronome:midi_in") { break } else { usleep(50_000) } }
        let sent = try namespace.start(
            "/usr/bin/env",
            [
                "python3", Self.sender, jackName, "metronome:midi_in", "8", "bpm:120", "jitter:uniform:1", "seed:11",
                "start@1.0",
            ],
            environment: environment
        ).wait()
        let watched = watch.wait()
        kill(ours.pid, SIGINT)
        let result = ours.wait()
        try #require(sent.status == 0, "\(sent.standardError)")
        try #require(watched.status == 0, "\(watched.standardError)")
        #expect(result.status == 0, "\(result.standardError)")

        var ideal: [Double] = []
        var firstClock = 0
        for line in sent.standardOutput.split(separator: "\n") {
            let words = line.split(separator: " ")
            if words[0] == "ideal", words.count > 2, let frame = Double(words[2]) { ideal.append(frame) }
            if words[0] == "mark", words.count > 2, words[2] == "fa", let index = Int(words[1]) { firstClock = index }
        }
        var clock: [(frame: Double, micros: Double, width: Double)] = []
        var timelines: [Timeline] = []
        var peers: Int?
        for line in watched.standardOutput.split(separator: "\n") {
            let words = line.split(separator: " ").map(String.init)
            if words[0] == "clock", words.count == 4, let frame = Double(words[1]), let micros = Double(words[2]),
                let width = Double(words[3])
            {
                clock.append((frame, micros, width))
            }
            if words[0] == "timeline", words.count == 4, let micros = Double(words[1]), let beat = Double(words[2]),
                let tempo = Double(words[3])
            {
                timelines.append(Timeline(micros: micros, beat: beat, tempo: tempo))
            }
            if words[0] == "peers", words.count == 2 { peers = Int(words[1]) }
        }
        #expect(peers == 1, "\(watched.standardOutput.suffix(200))")
        // The server's frames on Link's clock, near each beat: the dummy driver's 48 000 frames a second of the
        // monotonic clock Link's is, set by the tightest half of the readings within 250 ms of the frame (the
        // narrowest between their two reads of Link's clock). jack_frame_time is the server's estimate, which a
        // stalled cycle of the dummy driver sets on a new line: CI at 711cea8 read every beat off by a ramp of
        // 1.3 ms from the fifth to the fourteenth, the one least-squares line through all eight seconds it used then
        // tilted by such a step (the session's beats, committed within 0.1 ms of ours, cannot ramp). That line's
        // figures are given beside, for the message.
        try #require(clock.count >= 40, "\(clock.count) clock readings")
        let everywhere = try #require(Self.line(through: clock), "the clock readings give no line")
        let micros = { (frame: Double) -> Double? in
            let near = clock.filter { abs($0.frame - frame) <= 12_000 }.sorted { $0.width < $1.width }
            let tight = near.prefix(near.count / 2)
            guard tight.count >= 3 else { return nil }
            return frame / 0.048 + tight.map { $0.micros - $0.frame / 0.048 }.reduce(0, +) / Double(tight.count)
        }
        // Each beat of the clock from the fifth (the first is late by a lookahead), against the timeline the peer
        // had a quarter of a second before it: the session's beat there, to the nearest of the same phase in 4.
        let beats = stride(from: firstClock + 24 * 4, to: ideal.count, by: 24).map { ideal[$0] }
        try #require(beats.count >= 10, "\(beats.count) beats sent from the fifth")
        var errors: [Double] = []
        var tempos: [Double] = []
        var globalErrors: [Double] = []
        for (number, frame) in zip(4..., beats) {
            guard let time = micros(frame), let seen = timelines.last(where: { $0.micros <= time - 250_000 }) else {
                continue
            }
            let globalOff = seen.beat(at: everywhere(frame)) - Double(number)
            globalErrors.append((globalOff - 4 * (globalOff / 4).rounded()) * 60e6 / seen.tempo / 1000)
            let off = seen.beat(at: time) - Double(number)
            let phase = off - 4 * (off / 4).rounded()
            errors.append(phase * 60e6 / seen.tempo / 1000)
            tempos.append(seen.tempo)
        }
        #expect(errors.count >= 10, "\(errors.count) beats compared")
        let figures =
            "the session's beats off the clock's (ms): \(errors.map { ($0 * 1000).rounded() / 1000 }); with one line "
            + "through all the clock readings: \(globalErrors.map { ($0 * 1000).rounded() / 1000 })"
        #expect(errors.allSatisfy { abs($0) <= 1 }, "\(figures)")
        #expect(tempos.allSatisfy { abs($0 - 120) <= 0.05 }, "the session's tempos: \(tempos)")
        let report = result.standardError
        #expect(report.contains("Link: led from the MIDI clock"), "\(report)")
        print(
            "link-midi-clock: errors (ms) \(errors.map { ($0 * 1000).rounded() / 1000 }), with one line through all "
                + "the clock readings \(globalErrors.map { ($0 * 1000).rounded() / 1000 }), tempos \(Set(tempos))")
    }

    /// The least-squares line of Link's clock (µs) on the server's frame through the tightest half of `readings`
    /// (the narrowest between their two reads of Link's clock), at least 10 of them; nil with fewer.
    static func line(through readings: [(frame: Double, micros: Double, width: Double)]) -> ((Double) -> Double)? {
        let tight = readings.sorted { $0.width < $1.width }.prefix(readings.count / 2)
        guard tight.count >= 10 else { return nil }
        let meanFrame = tight.map(\.frame).reduce(0, +) / Double(tight.count)
        let meanMicros = tight.map(\.micros).reduce(0, +) / Double(tight.count)
        let covariance = tight.map { ($0.frame - meanFrame) * ($0.micros - meanMicros) }.reduce(0, +)
        let variance = tight.map { ($0.frame - meanFrame) * ($0.frame - meanFrame) }.reduce(0, +)
        guard variance > 0 else { return nil }
        let slope = covariance / variance
        return { frame in meanMicros + (frame - meanFrame) * slope }
    }
}

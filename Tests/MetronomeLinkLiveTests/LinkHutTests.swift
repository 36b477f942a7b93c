import Foundation
import MetronomeTestSupport
import Testing

/// LinkHut (Debian's ableton-link-utils), Ableton's own example peer, driven through its keys in a tmux pane inside
/// the test's network namespace, with a JACK server of its own there (a dummy driver: LinkHut plays through JACK).
@Suite("Link: LinkHut, Ableton's own peer, driven by its keys", .serialized)
struct LinkHutTests {
    /// LinkHut's status line (under its header `enabled | num peers | quantum | start stop sync | tempo …`), as
    /// cells: enabled, peers, quantum, sync [state], tempo, beats, metro.
    static func status(_ tmux: [String]) throws -> [String] {
        let screen = try ChildProcess("/usr/bin/tmux", tmux + ["capture-pane", "-p", "-t", "hut"]).wait().standardOutput
        let lines = screen.split(separator: "\n")
        guard let header = lines.firstIndex(where: { $0.hasPrefix("enabled") }), header + 1 < lines.count else {
            return []
        }
        return lines[header + 1].split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    @Test(
        "LinkHut: its tempo keys are followed by ours, ours reaches its screen with our peer, and start/stop goes both ways"
    )
    func linkHut() throws {
        let lab = try LinkLab()
        let namespace = lab.namespace
        let jackName = "metronome-\(getpid())"
        let jack = try namespace.start(
            "/usr/bin/jackd", ["-n", jackName, "-R", "-d", "dummy", "-r", "48000", "-p", "256"])
        defer {
            jack.send(SIGTERM)
            _ = jack.wait()
        }
        var environment = ProcessInfo.processInfo.environment
        environment["JACK_DEFAULT_SERVER"] = jackName
        environment["JACK_NO_START_SERVER"] = "1"
        _ = try poll(atMost: 1.5, every: 0.05) {
            let listed = try ChildProcess("/usr/bin/jack_lsp", [], environment: environment).wait(killingAfter: 3)
            return listed.standardOutput.split(separator: "\n").contains("system:playback_1")
        }
        let tmux = ["-L", "metronome-test-\(getpid())"]
        let hut = try namespace.start(
            "/usr/bin/tmux",
            tmux + [
                "new-session", "-d", "-s", "hut", "-x", "120", "-y", "30",
                "env JACK_DEFAULT_SERVER=\(jackName) LinkHut",
            ]
        ).wait()
        try #require(hut.status == 0, "\(hut.standardError)")
        defer { _ = try? ChildProcess("/usr/bin/tmux", tmux + ["kill-server"]).wait() }
        func keys(_ names: String...) throws {
            for name in names {
                _ = try ChildProcess("/usr/bin/tmux", tmux + ["send-keys", "-t", "hut", name]).wait()
                usleep(100_000)
            }
        }
        _ = try poll(atMost: 1, every: 0.05) { try !Self.status(tmux).isEmpty }
        // LinkHut starts with Link off: a enables it, s its start/stop sync.
        try keys("a", "s")
        usleep(500_000)
        let ours = try lab.serve(["--link-start-stop", "--wait"])
        func ask(_ steps: String...) throws -> [String] {
            let result = try lab.osc(steps)
            try #require(result.status == 0, "\(result.standardError)")
            return result.standardOutput.split(separator: "\n").map(String.init)
        }
        // Ours shown on LinkHut's screen within 2 s: one peer, sync on, stopped, its 120.
        let shown = ["yes", "1", "4", "yes [stopped]", "120.00"]
        _ = try poll(atMost: 2, every: 0.05) { try Array(Self.status(tmux).prefix(5)) == shown }
        var status = try Self.status(tmux)
        #expect(Array(status.prefix(5)) == shown, "\(status)")
        // LinkHut's e, five times: 125 BPM, taken by ours while neither plays.
        try keys("e", "e", "e", "e", "e")
        usleep(800_000)
        #expect(try ask("state") == ["link=1 peers=1 quantum=4.0 tempo=125.0 error="])
        // Ours: 131 BPM, on LinkHut's screen.
        #expect(
            try ask("/metronome/tempo:f:131", "wait:1", "state") == ["link=1 peers=1 quantum=4.0 tempo=131.0 error="])
        status = try Self.status(tmux)
        #expect(status.count > 4 && status[4] == "131.00", "\(status)")
        // LinkHut's space starts both (ours on the next quantum boundary: within a bar, 1.8 s at 131 BPM).
        try keys("Space")
        _ = try poll(atMost: 2.5, every: 0.05) { try ask("playing") == ["playing=1"] }
        #expect(try ask("playing") == ["playing=1"])
        // Our stop stops LinkHut; our play starts it again.
        _ = try ask("/metronome/stop", "wait:0.5")
        status = try Self.status(tmux)
        #expect(status.count > 3 && status[3] == "yes [stopped]", "\(status)")
        _ = try ask("/metronome/play")
        // LinkHut shows the session playing at once; ours plays from the next quantum boundary (within 1.8 s).
        _ = try poll(atMost: 2.5, every: 0.05) {
            try Self.status(tmux).dropFirst(3).first == "yes [playing]" && ask("playing") == ["playing=1"]
        }
        status = try Self.status(tmux)
        #expect(status.count > 3 && status[3] == "yes [playing]", "\(status)")
        #expect(try ask("playing", "/metronome/quit") == ["playing=1"])
        let result = ours.wait()
        #expect(result.status == 0, "\(result.standardError)")
        try keys("q")
    }
}

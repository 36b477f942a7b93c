import Foundation
import MetronomeFiles
import MetronomeTestSupport
import Testing

/// Ableton Link with real peers, every one inside a network namespace of the test's own (only loopback, up, with a
/// multicast route): two of our binaries, and linkpython-extern (PyPI `link`). Sound goes to a private PulseAudio
/// daemon, whose unix socket every namespace reaches, and one `parec` recording holds every click.
@Suite("Link: our clicks on a real Link session's beat, recorded", .serialized)
struct LinkLiveTests {
    /// The test peers' folder.
    static let peers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Peers").path

    /// One frame of tolerance for PulseAudio's rounding between two streams; 1 ms is 48 frames.
    static let millisecond = 48

    /// The first samples of a click, rendered by the binary (`--accent X --sound NAME`), to tell the two instances'
    /// clicks apart in one recording.
    static func clickStart(sound: String, in scratch: Scratch) throws -> [Float] {
        let path = scratch.file("\(sound).wav")
        let result = try CommandRunner.run(["--meter", "1/4", "--accent", "X", "--sound", sound, "--bars", "1", "-o", path])
        try #require(result.status == 0, "\(result.standardError)")
        let left = try AudioFileReader.read(path: path).channels[0]
        let first = try #require(onsets(left).first)
        return Array(left[first..<(first + 32)])
    }

    @Test("Two of ours in one session: B, started 2.5 s later at 97 BPM, takes A's 120 and each of its clicks lies one beat after A's, within 1 ms")
    func twoOfOurs() throws {
        let namespace = try NetworkNamespace()
        #expect(try namespace.interfaces() == ["lo"])
        let scratch = try Scratch()
        let beep = try Self.clickStart(sound: "beep", in: scratch)
        let server = try PulseServer()
        let recording = try server.startRecording()
        let a = try namespace.start(
            CommandRunner.executable, ["120", "--accent", "X...", "--link", "--duration", "12", "--verbose"],
            environment: server.clientEnvironment)
        usleep(2_500_000)
        let b = try namespace.start(
            CommandRunner.executable,
            ["97", "--accent", ".X..", "--sound", "beep", "--link", "--duration", "8", "--verbose"],
            environment: server.clientEnvironment)
        let resultB = b.wait()
        let resultA = a.wait()
        let samples = try recording.finish()
        #expect(resultA.status == 0, "\(resultA.standardError)")
        #expect(resultB.status == 0, "\(resultB.standardError)")
        #expect(resultB.standardError.contains("metronome: Link: 1 peer at the end"), "\(resultB.standardError)")
        let found = onsets(samples)
        let isB = found.map { Array(samples[$0..<min($0 + 32, samples.count)]) == beep }
        let clicksA = zip(found, isB).filter { !$0.1 }.map(\.0)
        let clicksB = zip(found, isB).filter { $0.1 }.map(\.0)
        // A: a click every bar (4 beats at 120 BPM: 96 000 frames) from its start to its end; B: 2 or more.
        #expect(clicksA.count >= 5)
        #expect(clicksB.count >= 2)
        let barsA = zip(clicksA, clicksA.dropFirst()).map { $1 - $0 }
        #expect(barsA.allSatisfy { abs($0 - 96_000) <= 1 }, "A's bars: \(barsA)")
        for click in clicksB {
            let before = try #require(clicksA.last { $0 < click }, "B's click at \(click) has no A click before it")
            #expect(abs(click - before - 24_000) <= Self.millisecond, "B at \(click), A at \(before)")
        }
    }

    @Test("A Python peer's tempo change: every interval is a whole beat of 120 or of 140 BPM, one change, on a beat")
    func pythonPeerChangesTempo() throws {
        let namespace = try NetworkNamespace()
        #expect(try namespace.interfaces() == ["lo"])
        let server = try PulseServer()
        let recording = try server.startRecording()
        // The peer founds the session at 120; 4 s later it sets 140 from its next beat, and stays 4 s more.
        let peer = try namespace.start(
            "/usr/bin/env", ["python3", Self.peers + "/tempo_peer.py", "120", "4", "140", "4"],
            environment: server.clientEnvironment)
        usleep(1_500_000)
        let ours = try namespace.start(
            CommandRunner.executable, ["97", "--link", "--duration", "7", "--verbose"],
            environment: server.clientEnvironment)
        let result = ours.wait()
        let peerResult = peer.wait()
        let samples = try recording.finish()
        #expect(result.status == 0, "\(result.standardError)")
        #expect(peerResult.status == 0, "\(peerResult.standardError)")
        #expect(peerResult.standardOutput.contains("changed"), "\(peerResult.standardOutput)")
        let gaps = zip(onsets(samples), onsets(samples).dropFirst()).map { $1 - $0 }
        // 120 BPM: 24 000 frames; 140 BPM: 20 571.43, so 20 571 or 20 572.
        let slow = gaps.prefix { abs($0 - 24_000) <= 1 }
        let fast = gaps.dropFirst(slow.count)
        #expect(slow.count >= 3, "intervals: \(gaps)")
        #expect(fast.count >= 3, "intervals: \(gaps)")
        #expect(fast.allSatisfy { $0 == 20_571 || $0 == 20_572 }, "intervals: \(gaps)")
    }
}

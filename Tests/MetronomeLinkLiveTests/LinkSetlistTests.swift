import Foundation
import MetronomeTestSupport
import Testing

/// A set served beside a Link peer (in the lab's namespace): the peer subscribes to our beats and measures each one's
/// time tag against the session's time for its beat.
@Suite("Link: a setlist switched over OSC keeps the session's phase", .serialized)
struct LinkSetlistTests {
    @Test(
        "serve gig.setlist --link beside a peer at 100 BPM: switched twice over OSC (A's switch on its bar line, B's at once), every beat within 1 ms of the session's, every song's first beat on a multiple of the quantum"
    )
    func switchesInPhase() throws {
        let scratch = try Scratch()
        let set = scratch.file("gig.setlist")
        try """
        song "A" click 120 4/4
        song "B" click 90 3/4 switch now
        song "C" click 150 4/4
        """.write(toFile: set, atomically: true, encoding: .utf8)
        let (result, peerResult, switches) = try repeatedOnlyForOutsideCauses {
            let lab = try LinkLab()
            // The peer founds the session at 100 BPM, subscribes 2.5 s later, and measures for 11 s.
            let peer = try lab.peer("beat_times", [LinkLab.oscPort, "2.5", "11", "100", "100", "100", "4"])
            usleep(1_000_000)
            let ours = try lab.serve([set, "--verbose"])
            let switching = try lab.peer(
                "osc_state",
                [
                    LinkLab.oscPort, "ready", "wait:4", "/metronome/setlist/next", "wait:3.1",
                    "/metronome/setlist/next",
                ])
            let peerResult = peer.wait()
            let switches = switching.wait()
            let result = ours.wait()
            _ = reportedUnderruns(result.standardError)
            let verbose = PulseServer.VerboseReport(standardError: result.standardError)
            return LiveAttempt((result, peerResult, switches), outsideCause: verbose.outsideUs())
        }
        let verbose = PulseServer.VerboseReport(standardError: result.standardError)
        #expect(verbose.underruns == 0, "\(verbose.figures)")
        #expect(verbose.slowCallback == nil)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(peerResult.status == 0, "\(peerResult.standardError)")
        #expect(switches.status == 0, "\(switches.standardError)")
        let beats = peerResult.standardOutput.split(separator: "\n").filter { $0.hasPrefix("beat ") }
            .map { $0.split(separator: " ").map(String.init) }
        let errors = beats.compactMap { Int($0[3]) }
        #expect(errors.count >= 15, "\(peerResult.standardOutput)")
        #expect(errors.allSatisfy { abs($0) <= 1000 }, "errors in µs: \(errors)")
        // One beat of ours on each session beat, across both switches: none doubled (the old song's downbeat and the
        // new song's first a frame apart), none missed.
        let sessionBeats = beats.compactMap { Int($0[2]) }
        #expect(
            zip(sessionBeats, sessionBeats.dropFirst()).allSatisfy { $1 == $0 + 1 },
            "session beats \(sessionBeats): \(beats.map { $0[1] })")
        // Each song's first beat is bar 1, beat 1 of it: B's and C's come after the peer subscribed (A's too, when
        // our start took longer than the peer's wait), each on a multiple of the quantum.
        let places = beats.map { $0[1] }
        let allTops = beats.indices.filter { places[$0] == "1.1" }.compactMap { Int(beats[$0][2]) }
        #expect(allTops.count >= 2, "songs' first beats at session beats \(allTops): \(places)")
        #expect(allTops.allSatisfy { $0 % 4 == 0 }, "songs' first beats at session beats \(allTops)")
        let tops = Array(allTops.suffix(2))
        // B plays 3/4 between them: its downbeats come every 3 session beats from its first.
        let bDownbeats = beats.indices.filter { places[$0].hasSuffix(".1") }.compactMap { Int(beats[$0][2]) }
            .filter { tops.count == 2 && $0 >= tops[0] && $0 < tops[1] }
        #expect(
            bDownbeats.count >= 2 && zip(bDownbeats, bDownbeats.dropFirst()).allSatisfy { $1 - $0 == 3 },
            "B's downbeats \(bDownbeats)")
    }
}

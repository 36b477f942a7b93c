import Foundation
import MetronomeTestSupport
import Testing

/// A setlist played live through PulseAudio and switched from the keys, recorded: the first click of every song on
/// its planned frame.
@Suite("Live: a setlist switched from the keys", .serialized)
struct SetlistLiveTests {
    @Test(
        "n during song A lands song B on A's next bar line; B moves on to C 0.5 s after its end; the line shows song, title and next; the set ends with exit 0; the log has a row per song"
    )
    func keysSwitchAndMoveOn() throws {
        let server = try PulseServer()
        let scratch = try Scratch()
        let set = scratch.file("gig.setlist")
        try """
        setlist "Test set"
        song "A" click 240 4/4 bars 16
        song "B" click 180 3/4 bars 2 then after 0.5s
        song "C" click 300 4/4 bars 2
        """.write(toFile: set, atomically: true, encoding: .utf8)
        let recording = try server.startRecording()
        let log = scratch.file("log.sqlite")
        let command = server.withTestLatency([CommandRunner.executable, "play", set, "--verbose", "--log-file", log])
        let terminal = try KeyedTerminal(command.joined(separator: " "), environment: server.clientEnvironment)
        terminal.type("n", after: 1700)
        let result = terminal.wait()
        let recorded = try recording.finish()
        let screen = result.standardOutput
        #expect(result.status == 0, "\(screen)")
        // The terminal ends its lines with "\r\n".
        let report = PulseServer.VerboseReport(standardError: screen.replacingOccurrences(of: "\r\n", with: "\n"))
        #expect(report.lateEvents == 0 && report.underruns == 0, "\(report.figures)\n\(screen)")
        #expect(screen.contains("song 1/3 A, next: B"), "\(screen)")
        #expect(screen.contains("song 2/3 B, next: C"), "\(screen)")
        #expect(screen.contains("song 3/3 C"), "\(screen)")
        let found = onsets(recorded)
        let first = try #require(found.first)
        // A at 240: a beat every 12 000 frames, on them until the switch; B's first click is on the next of them, a
        // bar line of A (every 4 beats) after the key, and B's second 16 000 frames after it.
        let fromA = found.map { $0 - first }
        var onGrid = 0
        while onGrid < fromA.count, fromA[onGrid] == onGrid * 12_000 { onGrid += 1 }
        let aBeats = onGrid - 1
        #expect(aBeats % 4 == 0 && aBeats >= 4 && aBeats < 16, "\(fromA)")
        let bStart = aBeats * 12_000
        // B: 6 beats at 180 (16 000 frames), ends 96 000 frames after its start; C 0.5 s (24 000) later, at 300
        // (9 600 a beat), 8 beats.
        let b = (0..<6).map { (beat: Int) -> Int in bStart + beat * 16_000 }
        let c = (0..<8).map { (beat: Int) -> Int in bStart + 96_000 + 24_000 + beat * 9_600 }
        #expect(Array(fromA.dropFirst(aBeats)) == b + c, "\(fromA)")
        // The log: a row per song, each with its own title, plain click, tempo and time (B's six beats at 180 are
        // 2 s; C's eight at 300, 1.6 s), the first two closed as the set moved on.
        let runs = try CommandRunner.run(["log", "--runs", "--csv", "--log-file", log])
        #expect(runs.status == 0, "\(runs.standardError)")
        let rows = runs.standardOutput.split(separator: "\n").dropFirst().map { (line: Substring) -> [String] in
            line.split(separator: ",", omittingEmptySubsequences: false).map { (field: Substring) -> String in
                String(field)
            }
        }
        // id,started_utc,local_date,what,setlist_song,setlist_path,lowest_bpm,highest_bpm,meters,sound,seconds,ending
        let what = rows.map { (row: [String]) -> String in row[3] }
        #expect(what == ["click 240 4/4", "click 180 3/4", "click 300 4/4"], "\(rows)")
        let songs = rows.map { (row: [String]) -> String in row[4] }
        #expect(songs == ["A", "B", "C"], "\(rows)")
        let highest = rows.map { (row: [String]) -> String in row[7] }
        #expect(highest == ["240", "180", "300"], "\(rows)")
        let endings = rows.map { (row: [String]) -> String in row[11] }
        #expect(endings == ["switched", "switched", "ended"], "\(rows)")
        let seconds = rows.dropFirst().map { (row: [String]) -> String in row[10] }
        #expect(seconds == ["2", "1.6"], "\(rows)")
        #expect(rows.allSatisfy { (row: [String]) -> Bool in row[5] == set }, "\(rows)")
    }
}

import Foundation
import MetronomeApp
import MetronomeEngine
import MetronomeModel
import MetronomePatterns
import MetronomeTestSupport
import Testing

/// A setlist read, its paths resolved and every song checked by the command line's own rules (`SetlistDocument`).
@Suite("MetronomeApp: setlists checked song by song")
struct SetlistDocumentTests {
    /// A folder with `set/gig.setlist` holding `text`, `set/verse.metro` (2 bars of 3/4 at 90, labels `a` and `b`),
    /// `set/maps/m.klick` (one 4-bar entry at 60) and a shipped folder with `groove.metro` (endless 4/4 at 100).
    final class Gig {
        let scratch: Scratch
        let setlist: String
        let library: PatternLibrary

        init(_ text: String) throws {
            scratch = try Scratch()
            try FileManager.default.createDirectory(atPath: scratch.file("set/maps"), withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: scratch.file("shipped"), withIntermediateDirectories: true)
            try "tempo 90\nmeter 3/4\na: 1 bars\nb: 1 bars\n".write(
                toFile: scratch.file("set/verse.metro"), atomically: true, encoding: .utf8)
            try "4 4/4 60\n".write(toFile: scratch.file("set/maps/m.klick"), atomically: true, encoding: .utf8)
            try "tempo 100\nforever\n".write(
                toFile: scratch.file("shipped/groove.metro"), atomically: true, encoding: .utf8)
            setlist = scratch.file("set/gig.setlist")
            try text.write(toFile: setlist, atomically: true, encoding: .utf8)
            library = PatternLibrary(shippedFolder: scratch.file("shipped"))
        }

        func plan() throws(SetlistError) -> SetlistPlan {
            try SetlistDocument(path: setlist, library: library).plan()
        }

        /// The positioned error of checking the set, or nil when it checks.
        func problem() -> PatternError? {
            do {
                _ = try plan()
                return nil
            } catch {
                guard case .malformed(let problem) = error else { return nil }
                return problem
            }
        }
    }

    @Test("Relative paths from the setlist's folder, absolute ones as they are, names from the library alone")
    func paths() throws {
        let gig = try Gig("")
        let text = """
            song "Verse" file verse.metro
            song "Map" file maps/m.klick
            song "Absolute" file \(gig.scratch.file("set/verse.metro"))
            song "Groove" pattern groove bars 2
            """
        try text.write(toFile: gig.setlist, atomically: true, encoding: .utf8)
        // The working folder holds no verse.metro: only the setlist's folder does.
        #expect(!FileManager.default.fileExists(atPath: "verse.metro"))
        let plan = try gig.plan()
        #expect(plan.path == gig.setlist)
        #expect(
            plan.songs.map(\.path) == [
                gig.scratch.file("set/verse.metro"), gig.scratch.file("set/maps/m.klick"),
                gig.scratch.file("set/verse.metro"), gig.scratch.file("shipped/groove.metro"),
            ])
        let document = SetlistDocument(path: gig.setlist, library: gig.library)
        #expect(document.folder == gig.scratch.file("set/"))
        #expect(document.resolve("a/b.metro") == gig.scratch.file("set/a/b.metro"))
        #expect(document.resolve("/x.metro") == "/x.metro")
        #expect(SetlistDocument(path: "gig.setlist").resolve("a.metro") == "a.metro")
    }

    @Test("Each song's plan: its first tempo after scaling, meter, bars, length with the count-in, count-in")
    func plans() throws {
        let gig = try Gig(
            """
            setlist "Rehearsal"
            song "Verse" file verse.metro tempo-scale 2 count-in 1
            song "From b" file verse.metro start-at b bpm 60
            song "Map" file maps/m.klick then after 3s
            song "Click" click 120 7/8 bars 4 count-in 2 switch now
            song "Groove" pattern groove sound cowbell volume 0.5
            """)
        let plan = try gig.plan()
        #expect(plan.title == "Rehearsal")
        #expect(plan.songs.map(\.firstTempo) == [try BPM(180), try BPM(60), try BPM(60), try BPM(120), try BPM(100)])
        #expect(plan.songs.map(\.firstSection.meter.description) == ["3/4", "3/4", "4/4", "7/8", "4/4"])
        #expect(plan.songs.map(\.plan.bars) == [2, 1, 4, 4, nil])
        // Verse: a 3/4 count-in bar and 2 bars at 180, 9 beats of 1/3 s; from b: one bar at 60 and the file's
        // count-in (none); the map: 16 beats at 60; the click: 2 count-in bars and 4 of 7/8 at 120 (3.5 quarter notes
        // each); the groove plays without end.
        #expect(plan.songs.map(\.seconds) == [3, 3, 16, 10.5, nil])
        #expect(plan.songs.map(\.plan.map.countInBars) == [1, 0, 0, 2, 0])
        #expect(plan.songs[4].plan.sound == .cowbell)
        #expect(plan.songs[4].request.gain == VolumeCurve.gain(volume: 0.5))
        #expect(plan.songs.map(\.song.advance) == [.wait, .wait, .after(3), .wait, .wait])
        #expect(plan.songs.map(\.song.landing) == [.nextBar, .nextBar, .nextBar, .now, .nextBar])
    }

    @Test(
        "A song that cannot play: the command line's message for the value, at the song's line and the value's column",
        arguments: [
            (
                "song \"A\" file verse.metro count-in 17", 36,
                "--count-in 17: the count-in must be a whole number of bars from 0 to 16"
            ),
            (
                "song \"A\" click 120 4/4 bars 0", 29,
                "--bars 0: the number of bars must be a whole number from 1 to 1000000"
            ),
            ("song \"A\" pattern groove volume 2", 32, "--volume 2: volume must be a number from 0 to 1"),
            (
                "song \"A\" file verse.metro tempo-scale 20", 39,
                "--tempo-scale 20: the factor must be a number from 0.1 to 10"
            ),
            (
                "song \"A\" file verse.metro tempo-scale 2 bpm 100", 45,
                "--bpm and --tempo-scale cannot be used together; choose one"
            ),
            (
                "song \"A\" file verse.metro start-at c", 36,
                "--start-at c: no section or group has this label (labels: a, b)"
            ),
            ("song \"A\" click 120 4/x", 20, "--meter 4/x: a meter is written n/d, for example 4/4 or 7/8"),
            ("song \"A\" pattern nothing", 18, "nothing: no shipped pattern has this name (see 'metronome patterns')"),
            ("song \"A\" file gone.metro", 15, "GIG/set/gone.metro: no such file"),
            ("song \"A\" file bad.metro", 15, "GIG/set/bad.metro:2:1: error: unknown word 'oops': a line is a section"),
            (
                "song \"A\" pattern groove then after 2s", 18,
                "the song plays without end, so 'then after 2s' never comes; give it 'bars N', or 'then wait'"
            ),
            (
                "then after 2s\nsong \"B\" click 90 4/4 bars 1\nsong \"A\" click 90 4/4", 16,
                "the song plays without end, so 'then after 2s' (line 1) never comes; give it 'bars N', or 'then wait'"
            ),
        ])
    func songErrors(text: String, column: Int, message: String) throws {
        let gig = try Gig(text)
        try "tempo 90\noops\n".write(toFile: gig.scratch.file("set/bad.metro"), atomically: true, encoding: .utf8)
        let problem = try #require(gig.problem())
        let lastLine = String(text.split(separator: "\n").last!)
        #expect(problem.file == gig.setlist)
        #expect(problem.line == text.split(separator: "\n").count)
        #expect(problem.column == column)
        #expect(problem.sourceLine == lastLine)
        let expected = message.replacingOccurrences(of: "GIG/", with: gig.scratch.file(""))
        #expect(problem.message.hasPrefix(expected), "\(problem.message)")
        #expect(!problem.message.contains("\n"))
    }

    @Test("A missing setlist is a file error (66 on the command line); a malformed one is positioned (65)")
    func fileErrors() throws {
        let missing = SetlistDocument(path: "/nonexistent/gig.setlist")
        #expect(throws: SetlistError.self) { try missing.plan() }
        do {
            _ = try missing.plan()
        } catch {
            #expect(error.isMissing)
            #expect(error.description == "/nonexistent/gig.setlist: no such file")
            #expect(CommandLineError(error).status == .noInput)
        }
        let gig = try Gig("song \"A\" click 90 4/4 then soon\n")
        do {
            _ = try gig.plan()
            Issue.record("a malformed setlist was taken")
        } catch {
            #expect(!error.isMissing)
            let line = CommandLineError(error)
            #expect(line.status == .dataError)
            #expect(!line.prefixed)
            #expect(line.message.hasPrefix("\(gig.setlist):1:28: error: expected 'wait' or 'after SECONDS'"))
        }
    }

    @Test("A name is found in the library's folders only, never in the working folder")
    func shippedLookup() throws {
        let shipped = try Scratch()
        try "tempo 120\n".write(toFile: shipped.file("basic.metro"), atomically: true, encoding: .utf8)
        let library = PatternLibrary(shippedFolder: shipped.path)
        #expect(library.shipped(named: "basic")?.path == shipped.file("basic.metro"))
        #expect(library.shipped(named: "basic.metro")?.path == shipped.file("basic.metro"))
        #expect(library.shipped(named: "Package.swift") == nil)  // in the working folder only
        #expect(library.shipped(named: "x/basic") == nil)
        #expect(library.document(named: "Package.swift").path == "Package.swift")
    }
}

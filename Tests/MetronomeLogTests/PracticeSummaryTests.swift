import Foundation
import MetronomeLog
import MetronomeTestSupport
import Testing

/// `metronome log`'s sums with a fixed "now" and time zone: today, the ISO week (Monday first), per song or pattern,
/// and the three formats, their text exact.
@Suite("MetronomeLog: today, this week and per song, as text, JSON and CSV")
struct PracticeSummaryTests {
    /// Wednesday 2 December 2026, 10:00 UTC (11:00 in Berlin).
    let now = PracticeLogFixtures.moment("2026-12-02T10:00:00Z")
    let berlin = TimeZone(identifier: "Europe/Berlin")!

    /// Runs around the week of 30 November to 6 December 2026.
    func store(_ scratch: Scratch) throws -> PracticeStore {
        let store = try PracticeStore.openForWriting(path: scratch.file("log.sqlite"))
        let runs = [
            PracticeLogFixtures.record(what: "click 120 4/4", date: "2026-11-29", seconds: 300, highest: 120),
            PracticeLogFixtures.record(what: "song", date: "2026-11-30", seconds: 1200, highest: 132),
            PracticeLogFixtures.record(what: "click 120 4/4", date: "2026-12-02", seconds: 90.4, highest: 120),
            PracticeLogFixtures.record(what: "song", date: "2026-12-02", seconds: 600, highest: 128.5),
            PracticeLogFixtures.record(what: "waltz.metro", date: "2026-12-02", seconds: 30, highest: nil),
            PracticeLogFixtures.record(
                what: "gig.setlist", date: "2026-12-03", seconds: 60, highest: 140, song: "song"),
            PracticeLogFixtures.record(what: "click 120 4/4", date: "2026-12-07", seconds: 45, highest: 150),
        ]
        for var run in runs { try store.insert(&run) }
        return store
    }

    @Test("Today and this week (Monday to Sunday) in the player's time zone; per song, the setlist's title first")
    func sums() throws {
        let scratch = try Scratch()
        let summary = try PracticeSummary.read(try store(scratch), now: now, timeZone: berlin)
        #expect(summary.today.dates == PracticeDateRange(first: "2026-12-02", last: "2026-12-02"))
        #expect(summary.today.total == PracticeTotal(piece: "", seconds: 720.4, runs: 3, highestTempo: 128.5))
        #expect(summary.week.dates == PracticeDateRange(first: "2026-11-30", last: "2026-12-06"))
        #expect(summary.week.total == PracticeTotal(piece: "", seconds: 1980.4, runs: 5, highestTempo: 140))
        #expect(
            summary.pieces == [
                PracticeTotal(piece: "song", seconds: 1860, runs: 3, highestTempo: 140),
                PracticeTotal(piece: "click 120 4/4", seconds: 435.4, runs: 3, highestTempo: 150),
                PracticeTotal(piece: "waltz.metro", seconds: 30, runs: 1, highestTempo: nil),
            ])
        let limited = try PracticeSummary.read(
            try PracticeStore.openForReading(path: scratch.file("log.sqlite")), now: now, timeZone: berlin,
            range: PracticeDateRange(first: "2026-11-30", last: "2026-12-02"))
        #expect(
            limited.pieces == [
                PracticeTotal(piece: "song", seconds: 1800, runs: 2, highestTempo: 132),
                PracticeTotal(piece: "click 120 4/4", seconds: 90.4, runs: 1, highestTempo: 120),
                PracticeTotal(piece: "waltz.metro", seconds: 30, runs: 1, highestTempo: nil),
            ])
    }

    @Test("The day and the week follow the time zone: late on Tuesday in UTC is Wednesday in Tokyo")
    func timeZones() {
        let late = PracticeLogFixtures.moment("2026-12-01T23:30:00Z")
        let utc = TimeZone(identifier: "UTC")!
        let tokyo = TimeZone(identifier: "Asia/Tokyo")!
        #expect(PracticeDateRange.today(late, in: utc).first == "2026-12-01")
        #expect(PracticeDateRange.today(late, in: tokyo).first == "2026-12-02")
        // Sunday night in New York is Monday in Berlin: another week.
        let sunday = PracticeLogFixtures.moment("2026-12-07T02:00:00Z")
        let newYork = TimeZone(identifier: "America/New_York")!
        #expect(
            PracticeDateRange.week(sunday, in: newYork) == PracticeDateRange(first: "2026-11-30", last: "2026-12-06"))
        #expect(
            PracticeDateRange.week(sunday, in: berlin) == PracticeDateRange(first: "2026-12-07", last: "2026-12-13"))
        // A week across the new year, and one with the end of summer time in it.
        let newYear = PracticeLogFixtures.moment("2027-01-01T12:00:00Z")
        #expect(
            PracticeDateRange.week(newYear, in: berlin) == PracticeDateRange(first: "2026-12-28", last: "2027-01-03"))
        let autumn = PracticeLogFixtures.moment("2026-10-25T12:00:00Z")
        #expect(
            PracticeDateRange.week(autumn, in: berlin) == PracticeDateRange(first: "2026-10-19", last: "2026-10-25"))
    }

    @Test(
        "Dates are YYYY-MM-DD and exist",
        arguments: [
            ("2026-11-30", true), ("2024-02-29", true), ("2026-02-29", false), ("2026-02-30", false),
            ("2026-13-01", false),
            ("2026-1-30", false), ("26-11-30", false), ("2026/11/30", false), ("2026-11-30 ", false), ("", false),
            ("yesterday", false), ("2026-00-10", false), ("+026-11-30", false),
        ])
    func dates(text: String, valid: Bool) {
        #expect((PracticeDateRange.parseDay(text) != nil) == valid)
    }

    @Test("The summary as text, CSV and JSON")
    func formats() throws {
        let scratch = try Scratch()
        let summary = try PracticeSummary.read(try store(scratch), now: now, timeZone: berlin)
        #expect(
            PracticeReport.summary(summary, format: .text) == """
                today (2026-12-02): 0:12:00 in 3 runs, highest tempo 128.5
                this week (2026-11-30 to 2026-12-06): 0:33:00 in 5 runs, highest tempo 140
                per song or pattern, every day:
                   time  runs  highest  what
                0:31:00     3      140  song
                0:07:15     3      150  click 120 4/4
                0:00:30     1        -  waltz.metro

                """)
        #expect(
            PracticeReport.summary(summary, format: .csv) == """
                scope,first_date,last_date,what,seconds,runs,highest_bpm
                today,2026-12-02,2026-12-02,,720.4,3,128.5
                week,2026-11-30,2026-12-06,,1980.4,5,140
                piece,0000-01-01,9999-12-31,song,1860,3,140
                piece,0000-01-01,9999-12-31,click 120 4/4,435.4,3,150
                piece,0000-01-01,9999-12-31,waltz.metro,30,1,

                """)
        let json = PracticeReport.summary(summary, format: .json)
        let decoded = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        let today = decoded?["today"] as? [String: Any]
        #expect(today?["seconds"] as? Double == 720.4)
        #expect(today?["runs"] as? Int == 3)
        #expect(today?["first_date"] as? String == "2026-12-02")
        let pieces = decoded?["pieces"] as? [[String: Any]]
        #expect(pieces?.map { $0["what"] as? String } == ["song", "click 120 4/4", "waltz.metro"])
        #expect(pieces?.first?["highest_bpm"] as? Double == 140)
    }

    @Test("The runs: their local start, time, tempo range and ending; a stale running row reads as interrupted")
    func runs() throws {
        let start = PracticeLogFixtures.moment("2026-12-02T09:00:00Z").timeIntervalSince1970
        let finished = PracticeRecord(
            id: 1, startedAt: start, localDate: "2026-12-02", utcOffset: 3600, what: "click 100 4/4",
            lowestTempo: 100, highestTempo: 124, meters: "4/4", sound: "wood", seconds: 754.6, ending: .ended,
            updatedAt: start + 754.6, updateInterval: 60)
        var killed = finished
        (killed.id, killed.startedAt, killed.what, killed.ending) = (2, start + 1000, "gig.setlist", .running)
        (killed.setlistSong, killed.updatedAt, killed.seconds, killed.lowestTempo) = ("song", start + 1120, 120, 124)
        // 180 s after its last update, with an interval of 60 s, it still counts as running; after that, interrupted.
        #expect(killed.ending(at: start + 1300) == .running)
        #expect(killed.ending(at: start + 1301) == .interrupted)
        #expect(
            PracticeReport.runs([finished, killed], now: now, format: .text) == """
                         started     time    tempo  meters  ending       sound  what
                2026-12-02 10:00  0:12:35  100-124  4/4     ended        wood   click 100 4/4
                2026-12-02 10:16  0:02:00      124  4/4     interrupted  wood   song (gig.setlist)

                """)
        #expect(
            PracticeReport.runs([killed], now: now, format: .csv) == """
                id,started_utc,local_date,what,setlist_song,setlist_path,lowest_bpm,highest_bpm,meters,sound,seconds,ending
                2,2026-12-02T09:16:40Z,2026-12-02,gig.setlist,song,,124,124,4/4,wood,120,interrupted

                """)
        #expect(PracticeReport.runs([], now: now, format: .text) == "no runs\n")
    }

    @Test("CSV fields with a comma, a quote or a line break are quoted")
    func csvQuoting() {
        var record = PracticeLogFixtures.record(what: "a, \"b\"\nc", date: "2026-12-02")
        record.meters = "4/4, 7/8"
        let csv = PracticeReport.runs([record], now: now, format: .csv)
        #expect(csv.contains(",\"a, \"\"b\"\"\nc\","))
        #expect(csv.contains(",\"4/4, 7/8\","))
    }
}

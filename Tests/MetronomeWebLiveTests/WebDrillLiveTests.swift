import MetronomeTestSupport
import Testing

/// The page with the practice drills (`serve --random-mute --practice`), in headless Chromium.
@Suite(
    "serve --http with the practice drills: the page in a real browser", .serialized,
    .enabled(if: WebPageDriver.available, WebPageDriver.missing))
struct WebDrillLiveTests {
    /// What the page shows of the beat: the counter, whether the muted note is shown, whether the lights look muted.
    struct View: Decodable, Equatable {
        var counter: String
        var noteShown: Bool
        var lightsMuted: Bool
        /// The bar the counter shows, or nil for none.
        var bar: Int? { counter.split(separator: ".").first.flatMap { Int($0) } }

        init(from decoder: any Decoder) throws {
            var values = try decoder.unkeyedContainer()
            counter = try values.decode(String.self)
            noteShown = try values.decode(Bool.self)
            lightsMuted = try values.decode(Bool.self)
        }
    }

    /// The practice line: hidden or not, and its text.
    struct Practice: Decodable {
        var hidden: Bool
        var text: String

        init(from decoder: any Decoder) throws {
            var values = try decoder.unkeyedContainer()
            hidden = try values.decode(Bool.self)
            text = try values.decode(String.self)
        }
    }

    struct Drills: Decodable {
        var before: Practice
        var views: [View]
        var after: Practice
    }

    @Test(
        "serve --wait --bpm 240 --random-mute 50% --mute-seed 5 --practice 1h: before the play the page says 'practice 1:00:00 left'; playing, bars 1 and 2 show nothing muted and bar 3 (the first muted) shows each of its beats moving on, marked muted (the note, the hollow lights); the time left counts down"
    )
    func drills() throws {
        let (report, _) = try WebPageLiveTests.drive(
            "drills",
            ["--bpm", "240", "--random-mute", "50%", "--mute-seed", "5", "--practice", "1h", "--wait"],
            as: Drills.self)
        #expect(!report.before.hidden)
        #expect(report.before.text == "practice 1:00:00 left")
        let counters = report.views.map(\.counter)
        for beat in ["1.2", "2.1", "2.4", "3.1", "3.2", "3.3", "3.4"] {
            #expect(counters.contains(beat), "\(counters)")
        }
        for view in report.views {
            let muted = view.bar.map { [3, 4].contains($0) } ?? false
            #expect(view.noteShown == muted && view.lightsMuted == muted, "\(view)")
        }
        #expect(!report.after.hidden)
        #expect(report.after.text.hasPrefix("practice 59:5") && report.after.text.hasSuffix(" left"), "\(report.after)")
    }
}

import Foundation
import MetronomeTestSupport
import Testing

/// Runs the binary, killing it after `seconds` (a trap shows as 132, a kill as 137, so neither passes for 65).
func runBounded(_ arguments: [String], seconds: Double = 10) throws -> (result: CommandResult, elapsed: Double) {
    let start = Date()
    let child = try CommandRunner.start(arguments)
    while !child.hasExited, Date().timeIntervalSince(start) < seconds { usleep(10_000) }
    if !child.hasExited { child.send(SIGKILL) }
    return (child.wait(), Date().timeIntervalSince(start))
}

@Suite("Hostile inputs: every reproducer of issue 12 is one error and exit 65, never a trap or unbounded memory")
struct HostileInputTests {
    static let zeros = String(repeating: "0", count: 300)
    static let nested127 =
        String(repeating: "repeat 2\n", count: 127) + "1 bar\n" + String(repeating: "end\n", count: 127)
    static let nested8192 =
        String(repeating: "repeat 8192\n", count: 10) + "1 bar\n" + String(repeating: "end\n", count: 10)

    /// File name, its text, and what `check` must print on standard error.
    static let patterns: [(String, String, String)] = [
        (
            "t.metro", "tempo 9223372036854775808\n4 bars\n",
            "t.metro:1:7: error: tempo 9223372036854775808 is out of range; tempos must be from 1 to 1000 quarter notes per minute\ntempo 9223372036854775808\n      ^\n"
        ),
        (
            "max.klick", "9223372036854775807 4/4 120\n",
            "max.klick:1:1: error: a number of bars is a whole number from 1 to 1000000\n9223372036854775807 4/4 120\n^\n"
        ),
        (
            "list.klick", "9223372036854775807 4/4 120,120,120,120\n",
            "list.klick:1:1: error: a number of bars is a whole number from 1 to 1000000\n9223372036854775807 4/4 120,120,120,120\n^\n"
        ),
        (
            "clock.klick", "100000000000000000 4/4 120\n",
            "clock.klick:1:1: error: a number of bars is a whole number from 1 to 1000000\n100000000000000000 4/4 120\n^\n"
        ),
        (
            "step.metro", "forever trainer +0.\(zeros)1 every 1 bars to 200\n",
            "step.metro:1:1: error: the file expands to more than 200000 sections; use fewer repeats\nforever trainer +0.\(zeros)1 every 1 bars to 200\n^\n"
        ),
        (
            "every.metro", "4 bars trainer +1 every 9223372036854775807 bars to 200\n",
            "every.metro:1:25: error: a trainer steps every 1 to 1000000 bars, not 9223372036854775807\n4 bars trainer +1 every 9223372036854775807 bars to 200\n                        ^\n"
        ),
        (
            "forever.metro", "forever trainer +1 every 10001 repeats to 200\n",
            "forever.metro:1:26: error: a trainer steps every 1 to 10000 repeats, not 10001\nforever trainer +1 every 10001 repeats to 200\n                         ^\n"
        ),
        (
            "twos.metro", nested127,
            "twos.metro:128:1: error: the file expands to more than 200000 sections; use fewer repeats\n1 bar\n^\n"
        ),
        (
            "wide.metro", nested8192,
            "wide.metro:11:1: error: the file expands to more than 200000 sections; use fewer repeats\n1 bar\n^\n"
        ),
        (
            "long.klick", String(repeating: "1000000 64/1 120\n", count: 400),
            "long.klick:391:1: error: the map grows longer than 100000000000 quarter notes here\n1000000 64/1 120\n^\n"
        ),
        (
            "long.metro", "meter 64/1\nrepeat 20\n1000000 bars x10000\nend\n",
            "metronome: error: long.metro: section 391: the map grows longer than 100000000000 quarter notes here\n"
        ),
    ]

    @Test("check: overflowing numbers and nesting give the exact error and exit 65 within seconds", arguments: patterns)
    func patternReproducers(name: String, text: String, message: String) throws {
        let scratch = try Scratch()
        let path = scratch.file(name)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let (result, _) = try runBounded(["check", path])
        #expect(result.status == 65)
        #expect(result.standardError == message.replacingOccurrences(of: name, with: path))
        #expect(result.standardOutput == "")
    }

    @Test("--start-at far into an endless section is refused (64), not a trap")
    func startAtInfinity() throws {
        let scratch = try Scratch()
        try "4 bars\nforever\n".write(toFile: scratch.file("e.metro"), atomically: true, encoding: .utf8)
        let (result, _) = try runBounded([
            "play", scratch.file("e.metro"), "--start-at", "9223372036854775807", "-o", scratch.file("o.wav"),
        ])
        #expect(result.status == 64)
        #expect(
            result.standardError
                == "metronome: error: --start-at 9223372036854775807: the pattern plays forever from bar 5; start at 1 to 1000004\n"
        )
    }
}

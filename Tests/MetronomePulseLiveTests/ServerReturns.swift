import Foundation
import MetronomeFiles
import MetronomeLive
import MetronomeTestSupport
import Testing

/// Seconds on the monotonic clock, for measuring how long the metronome took.
func now() -> Double { Double(HostTime.now().nanoseconds) / 1e9 }

/// Sends Ctrl-C (SIGINT) to `command` and waits for it to exit (`seconds` at most, then on): how long it took from the
/// signal to the exit, and its result.
func interrupted(_ command: ChildProcess, within seconds: Double) -> (elapsed: Double, result: CommandResult) {
    let sent = now()
    command.send(SIGINT)
    poll(atMost: seconds) { command.hasExited }
    let elapsed = now() - sent
    return (elapsed, command.wait())
}

/// Waits until the server shows a playback stream, and then 250 ms: the server lists the stream before the
/// metronome has its answer that the stream is ready, and a server killed in between is a stream refused at the start
/// ("refused the playback stream: Connection terminated", seen once beside a build), not a loss while playing.
func waitUntilPlaying(_ server: some PulseProtocolServer) throws -> Bool {
    let listed = try poll(atMost: 5) { try !server.pactl(["list", "short", "sink-inputs"]).standardOutput.isEmpty }
    usleep(250_000)
    return listed
}

/// What a run of `metronome --bpm 120 --quiet ARGUMENTS` gives when its whole server is killed while it plays
/// (`kill`) and started again (`restart`, 1.3 s later: more than two beats): its result, the recordings before the loss
/// and after the return (the recorder ends with its server) with their findings (`wholeClickFindings`), the two
/// recordings (ended, for their profilers: the first's ends with its server, or is interrupted a second after), and
/// how long the return took to play again, printed after `name`.
func killedAndStartedAgain(
    _ server: some PulseProtocolServer, arguments: [String] = [], lines: (lost: String, back: String), name: String,
    scratch: Scratch, kill: () -> Void, restart: () throws -> Void
) throws -> (
    result: CommandResult, before: [Float], after: [Float], findings: [String], first: Recording, second: Recording,
    returned: Double
) {
    let first = try server.startRecording()
    let command = try CommandRunner.start(
        ["--bpm", "120", "--quiet"] + arguments, environment: server.clientEnvironment)
    #expect(try waitUntilPlaying(server))
    usleep(1_100_000)
    kill()
    #expect(poll(atMost: 2) { command.errorOutput == lines.lost })
    first.process.wait()
    let recorded = now()
    if let profiler = first.profiler {
        // It writes its log on SIGINT; it may have ended with its server already.
        profiler.process.send(SIGINT)
        _ = profiler.process.wait(killingAfter: 1)
    }
    let before = try AudioFileReader.read(path: first.path).channels[0]
    // The server starts again 1.3 s after the recorder ended, as before the profiler was waited for.
    usleep(useconds_t(max(0, 1.3 - (now() - recorded)) * 1_000_000))
    try restart()
    let back = now()
    let second = try server.startRecording()
    #expect(poll(atMost: 3) { command.errorOutput == lines.lost + lines.back })
    let returned = now() - back
    print("\(name) back → stream playing again: \(Int(returned * 1000)) ms")
    usleep(2_000_000)
    command.send(SIGINT)
    let result = command.wait()
    let after = try second.finish()
    let findings = try wholeClickFindings(before: before, after: after, scratch: scratch)
    return (result, before, after, findings, first, second, returned)
}

/// Checks the recordings of `metronome --bpm 120` before a server's death and after its return: each holds whole
/// clicks, identical to the offline ones — nothing cut, nothing bunched — 24000 frames apart. The death may cut the
/// last click before it; the new stream is silent until it is on the lost one's grid (its start latency skipped while
/// silent) and sounds from a moment when no click sounds, so every click after the return is whole. (Where they fall
/// against the grid before the loss needs one recording across: `expectOnTheGridAcrossReturns`.)
func expectWholeClicks(
    before: [Float], after: [Float], scratch: Scratch, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    for finding in try wholeClickFindings(before: before, after: after, scratch: scratch) {
        Issue.record(Comment(rawValue: finding), sourceLocation: sourceLocation)
    }
}

/// The accent (bar 1, beat 1) and normal (beat 2) clicks of `metronome --bpm 120` as rendered offline, each up to its
/// last non-zero sample; nil with the render's exit and error when it failed.
func offlineClicks(scratch: Scratch) throws -> (accent: [Float]?, normal: [Float]?, problem: String) {
    let rendered = scratch.file("reference.wav")
    let render = try CommandRunner.run(["--bpm", "120", "--bars", "2", "--quiet", "--output", rendered])
    guard render.status == 0 else {
        return (nil, nil, "the reference render exited \(render.status): \(render.standardError)")
    }
    let reference = try AudioFileReader.read(path: rendered).channels[0]
    let accent = Array(reference[0..<(reference[0..<24000].lastIndex { $0 != 0 }! + 1)])
    let normal = Array(reference[24000..<(reference[24000..<48000].lastIndex { $0 != 0 }! + 1)])
    return (accent, normal, "")
}

/// What `expectWholeClicks` would record, one line each; empty when the recordings pass (for a repeat's rule).
func wholeClickFindings(before: [Float], after: [Float], scratch: Scratch) throws -> [String] {
    let offline = try offlineClicks(scratch: scratch)
    guard let accent = offline.accent, let normal = offline.normal else { return [offline.problem] }
    var findings: [String] = []
    for (name, recording, partial) in [("before", before, onsets(before).last), ("after", after, nil)] {
        let whole = onsets(recording).filter { onset in
            [accent, normal].contains { click in
                recording.count >= onset + click.count && Array(recording[onset..<(onset + click.count)]) == click
            }
        }
        if whole.count < 2 { findings.append("\(name): \(whole.count) whole click(s), 2 at least expected") }
        let broken = Set(onsets(recording)).subtracting(whole).subtracting([partial].compactMap { $0 }).sorted()
        if !broken.isEmpty {
            let told = broken.map {
                "as an accent, " + differenceFromClick(recording, at: $0, accent) + "; as a normal click, "
                    + differenceFromClick(recording, at: $0, normal)
            }
            findings.append("\(name): clicks not whole: \(told)")
        }
        let steps = zip(whole.dropFirst(), whole).map { $0 - $1 }
        if !steps.allSatisfy({ $0 == 24000 }) { findings.append("\(name): whole clicks apart by \(steps)") }
    }
    return findings
}

/// `metronome --bpm 120` rendered for 6 bars: the click train a recording of it holds, from any beat of its bar on.
func clickTrain(scratch: Scratch) throws -> [Float] {
    let rendered = scratch.file("train.wav")
    let render = try CommandRunner.run(["--bpm", "120", "--bars", "6", "--quiet", "--output", rendered])
    guard render.status == 0 else { throw ReferenceRenderFailed(status: render.status, error: render.standardError) }
    return try AudioFileReader.read(path: rendered).channels[0]
}

/// A reference render that did not exit 0.
struct ReferenceRenderFailed: Error {
    let status: Int32
    let error: String
}

/// Where a recording of `metronome --bpm 120` departs from the click train it should hold, when it departs only as
/// PipeWire's graph makes a recording depart (`Recording.wholeQuantaEdits`: whole quanta of silence put in, of the
/// train taken out or replaced by silence). Compared from the recording's first onset to the end of the sound of its
/// last click but one when `partialLast` (the recorder ended with its server, maybe inside it), else of its last: as
/// many beats of the train, starting on whichever beat of the bar makes the two agree (the accent on the bar's first).
/// Nil when they are equal, or differ otherwise: a click cut or moved by other than whole quanta, one more or fewer;
/// and, whole quanta or not, the first click cut at its start, the last cut at its end (an edit reaching the end of
/// its sound), or a click moved alone (`movesAClickAlone`). A click's sound cut by whole quanta inside the window
/// cannot be told from a quantum the graph replaced with silence; it is explained only with as many troubled cycles.
/// - Parameters:
///   - samples: the recording.
///   - partialLast: whether its last click is left out.
///   - train: `clickTrain(scratch:)`.
func clickTrainDepartures(_ samples: [Float], partialLast: Bool, train: [Float]) -> [QuantumEdit]? {
    let found = onsets(samples)
    guard let first = found.first else { return nil }
    let clicks = found.count - (partialLast ? 1 : 0)
    guard clicks > 0 else { return nil }
    for beat in 0..<4 {
        let start = beat * 24000
        let lastClick = start + (clicks - 1) * 24000
        guard lastClick + 24000 <= train.count,
            let end = train[lastClick..<(lastClick + 24000)].lastIndex(where: { $0 != 0 })
        else { continue }
        let reference = Array(train[start...end])
        guard let edits = Recording.wholeQuantaEdits(in: samples[first...], against: reference) else { continue }
        guard edits.allSatisfy({ $0.frame > 0 && $0.frame + $0.span < reference.count }),
            !movesAClickAlone(edits, reference: reference)
        else { return nil }
        return edits
    }
    return nil
}

/// Whether two edits in a row that move what follows, the other way each, both at a click's onset or in the silence
/// between clicks (none inside a click's sound, nor any edit there between them), move the clicks between them alone:
/// a click of ours late or early by whole quanta reads as silence put in before it and taken out before the next
/// (the old intervals rule's "two intervals in a row off the opposite ways"). A graph's quantum taken out inside a
/// click's sound and silence put in before the next (CI at 4473320) is not such a pair.
func movesAClickAlone(_ edits: [QuantumEdit], reference: [Float]) -> Bool {
    func insideSound(_ edit: QuantumEdit) -> Bool {
        edit.frame > 0 && edit.frame < reference.count && reference[edit.frame - 1] != 0 && reference[edit.frame] != 0
    }
    var previous: QuantumEdit?
    for edit in edits {
        if insideSound(edit) {
            previous = nil
            continue
        }
        guard edit.shift != 0 else { continue }
        if let last = previous, last.shift * edit.shift < 0 { return true }
        previous = edit
    }
    return false
}

/// A recording of `metronome --bpm 120` across server returns: its onsets, the intervals between them, and for each
/// interval longer than a beat (a return's gap) how far the click after it is off the grid before it, in frames.
func gridAcrossReturns(_ samples: [Float]) -> (found: [Int], intervals: [Int], errors: [Int]) {
    let found = onsets(samples)
    let intervals = zip(found.dropFirst(), found).map { $0 - $1 }
    let errors = intervals.filter { $0 > 24002 }.map { $0 - Int((Double($0) / 24000).rounded()) * 24000 }
    return (found, intervals, errors)
}

/// Whether `expectOnTheGridAcrossReturns` would record nothing: its checks, as one answer (for a repeat's rule).
func isOnTheGridAcrossReturns(_ samples: [Float], returns: Int, clicks: Int, within tolerance: Int = 2) -> Bool {
    let (found, intervals, errors) = gridAcrossReturns(samples)
    return errors.count == returns && intervals.filter { $0 <= 24002 }.allSatisfy { $0 == 24000 }
        && found.count >= clicks && errors.allSatisfy { abs($0) <= tolerance }
}

/// Checks one recording of `metronome --bpm 120` across `returns` losses of its connection, while the sink's clock
/// ran on: the grid is the recording's own. Between losses every click is 24000 frames after the one before; after a
/// return, the first click is a whole number of beats after the last one before the loss, off that grid by at most 2
/// frames; and at least `clicks` clicks were heard.
func expectOnTheGridAcrossReturns(
    _ samples: [Float], returns: Int, clicks: Int, within tolerance: Int = 2,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let (found, intervals, errors) = gridAcrossReturns(samples)
    print(
        "the first click after each return against the grid before the loss, frames: \(errors); \(found.count) clicks")
    // An interval longer than a beat that no return explains is silence inserted (a server underrun, whose
    // measured cause is the server's: docs/benchmarks.md), or a return that moved the grid; the message tells.
    #expect(errors.count == returns, "intervals between clicks, frames: \(intervals)", sourceLocation: sourceLocation)
    #expect(
        intervals.filter { $0 <= 24002 }.allSatisfy { $0 == 24000 }, "intervals: \(intervals)",
        sourceLocation: sourceLocation)
    #expect(found.count >= clicks, sourceLocation: sourceLocation)
    // Measured with PulseAudio over 20 returns in one recording (docs/benchmarks.md): since the two clocks are
    // compared on their least-delayed reports, 0 at 60 returns on a quiet machine, 0 or −1 at 60 beside a clean
    // AddressSanitizer build; the new stream's clock fit against the lost one's, from the server's microsecond
    // reports, and the skip rounded to a whole frame.
    #expect(
        errors.allSatisfy { abs($0) <= tolerance }, "each return's first click off the grid, frames: \(errors)",
        sourceLocation: sourceLocation)
}

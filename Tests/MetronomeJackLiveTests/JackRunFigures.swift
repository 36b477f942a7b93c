import MetronomeJack
import MetronomeTestSupport
import Testing

/// What the JACK live tests read of a run to decide whether it may be repeated (`JackServer.outsideCause`) and
/// what its own cycles say: our client's figures, the messages before `--verbose`'s report, how far frames are off.
enum JackRunFigures {
    /// A `JackOutput`'s own figures, for a session played in the test's process.
    static func timing(of output: JackOutput, rate: Int) -> JackServer.ClientTiming {
        JackServer.ClientTiming(
            missedCycles: output.missedCycleCount, longestCallback: Int(output.longestCallback.nanoseconds / 1000),
            periodMicroseconds: output.periodFrames * 1_000_000 / rate, slowCallbacks: output.slowCallbackCount,
            callbacks: output.cycleCount, slowOfOurOwn: output.slowOfOurOwnCount,
            longestOnCPU: Int(output.longestCallbackOnCPUNanoseconds / 1000))
    }

    /// The figures of several outputs together: the longest callback of any, the others' counts added up.
    static func timing(of outputs: [JackOutput], rate: Int) -> JackServer.ClientTiming {
        let each = outputs.map { timing(of: $0, rate: rate) }
        return JackServer.ClientTiming(
            missedCycles: each.reduce(0) { $0 + $1.missedCycles },
            longestCallback: each.map(\.longestCallback).max() ?? 0,
            periodMicroseconds: each.first?.periodMicroseconds ?? 0,
            slowCallbacks: each.reduce(0) { $0 + $1.slowCallbacks }, callbacks: each.reduce(0) { $0 + $1.callbacks },
            slowOfOurOwn: each.reduce(0) { $0 + $1.slowOfOurOwn }, longestOnCPU: each.map(\.longestOnCPU).max() ?? 0)
    }

    /// The lines a command wrote to standard error before `--verbose`'s report (which starts with the line of its
    /// JACK client): its messages.
    static func messages(_ standardError: String) -> [String] {
        Array(
            standardError.split(separator: "\n").map(String.init).prefix { !$0.hasPrefix("metronome: JACK: client '") })
    }

    /// How far `frames` are off a grid, for `JackServer.outsideCause`, in frames: from the first frame's distance to
    /// the grid's point nearest it (`nearest`), each change in that distance from one frame to the next counts a
    /// period, or one for each period it changes by if more (a late cycle moves what follows by a period at most); a
    /// point of the grid left out (a recorder's missed cycle can lose an event) costs nothing.
    static func framesOff(_ frames: [Int], period: Int, nearest: (Int) -> Int) -> Int {
        var offset = 0
        var moved = 0
        for frame in frames {
            let distance = frame - nearest(frame - offset)
            let change = abs(distance - offset)
            if change > 0 { moved += period * max(1, (change + period - 1) / period) }
            offset = distance
        }
        return moved
    }

    /// The grid point of a sorted list nearest `frame`.
    static func nearest(in grid: [Int]) -> (Int) -> Int {
        { frame in
            var low = 0
            var high = grid.count
            while low < high {
                let middle = (low + high) / 2
                if grid[middle] < frame { low = middle + 1 } else { high = middle }
            }
            let candidates = [low - 1, low].filter { grid.indices.contains($0) }.map { grid[$0] }
            return candidates.min { abs($0 - frame) < abs($1 - frame) } ?? frame
        }
    }

    /// Where the server played cycles without the player's frames, from its `--verbose` line ("cycles the server ran
    /// without calling us: 3 (this client's, at frame times: 40960×1, 81920×2 late)"): each run's frame time (the
    /// cycle after it), its length in frames (`cycles × period`), and whether it moved what came after (not for a
    /// call of ours woken late, marked "late"); empty when none (`JackOutput.missedCycles`).
    static func missedCycles(_ verbose: String, period: Int) -> [(frame: Int, by: Int, moved: Bool)] {
        let prefix = "metronome: cycles the server ran without calling us: "
        guard let line = verbose.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }),
            let list = line.split(separator: "at frame times: ").dropFirst().first
        else { return [] }
        return list.dropLast().split(separator: ", ").compactMap { entry in
            let parts = entry.split(separator: "×")
            let late = parts.count == 2 && parts[1].hasSuffix(" late")
            guard parts.count == 2, let frame = Int(parts[0]), let cycles = Int(parts[1].prefix { $0.isNumber })
            else { return nil }
            return (frame: frame, by: cycles * period, moved: !late)
        }
    }

    /// What is wrong with the cycles the server ran without calling us (`ours.missedCycles`, the whole run's), or nil:
    /// each must come with a late cycle in the server's log (all of it, restarts included) that is not an overrun of
    /// ours (the server's own, another client's, ours woken late); missed with nothing else late, they are ours. The
    /// message carries our callbacks' figures (their longest, on the CPU and from start to end), so that a failure
    /// says whether a callback of ours took that long of its own.
    static func unexplainedMissedCycles(_ ours: JackServer.ClientTiming?, on server: JackServer) -> String? {
        guard let ours else { return "our client's figures are missing" }
        let log = server.xrunLog()
        guard ours.missedCycles > 0, log.lateCycles(outside: ["metronome"]) == 0 else { return nil }
        return "cycles the server ran without calling us: \(ours.missedCycles), with nothing but ours late in the "
            + "server's log: \(log); ours: \(ours)" + (ours.missedAt.map { "; where: \($0)" } ?? "")
    }
}

/// A test's checks of a live run, kept as problems rather than recorded at once: a run whose checks fail may be
/// repeated (`JackServer.outsideCause`), and only the kept run's problems are recorded (`record`).
struct RunChecks {
    private(set) var problems: [(message: String, sourceLocation: SourceLocation)] = []

    /// Keeps `message` when `condition` is false.
    mutating func expect(
        _ condition: Bool, _ message: @autoclosure () -> String = "", sourceLocation: SourceLocation = #_sourceLocation
    ) {
        if !condition { problems.append((message(), sourceLocation)) }
    }

    /// The problems in one line, or nil when there are none.
    var summary: String? {
        problems.isEmpty ? nil : problems.map { "\($0.sourceLocation.line): \($0.message)" }.joined(separator: "; ")
    }

    /// Records every problem as an issue where its check is.
    func record() {
        for problem in problems {
            Issue.record(Comment(rawValue: problem.message), sourceLocation: problem.sourceLocation)
        }
    }
}

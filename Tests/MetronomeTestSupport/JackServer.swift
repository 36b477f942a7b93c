import Foundation
import MetronomeFiles

/// A private JACK server for one test: `jackd -n NAME -R -d dummy -r RATE -p PERIOD`, a name of its own (clients
/// reach it through `server` or `JACK_DEFAULT_SERVER=name`), real-time scheduling (root in CI; without it the dummy
/// backend xruns), and the dummy backend's `system:playback_1/2` and `system:capture_1/2` ports. Stopped on deinit.
public final class JackServer {
    /// The server's name.
    public let name: String
    /// Its sample rate and period.
    public let rate: Int
    public let period: Int
    private var daemon: ChildProcess?
    /// What the daemons before this one wrote (`kill` or `stop`, then `start` under the same name).
    private var earlierLog = (output: "", error: "")

    /// Starts a server and waits until `jack_lsp` reaches it (10 s at most).
    ///
    /// Every test server of a test process has the same name, `metronome-test-PID`, one at a time (the JACK tests
    /// run serially): JACK2 keeps its servers in a registry of 8 in shared memory, and a server killed (as some tests
    /// do) never leaves it; only a server of the same name takes a dead one's place, and one stopped at the end frees
    /// it. The process id keeps test runs of other checkouts on the same machine off this process's server (two
    /// runs on one name were seen to join each other's server and record each other's clients). Before the first
    /// start, with no jackd running on the machine and no other test process holding the registry's lock, a registry
    /// that killed servers of other names filled is removed (`clearedStaleRegistry`).
    public init(rate: Int = 48_000, period: Int = 256) throws {
        name = "metronome-test-\(getpid())"
        self.rate = rate
        self.period = period
        _ = Self.clearedStaleRegistry
        try start()
    }

    /// Removes JACK2's server registry (and our test servers' files) when no jackd runs on the machine and no other
    /// test process holds the registry's lock; once, before this process's first server (libjack in the process maps
    /// the registry it first finds, and keeps it).
    ///
    /// Test processes side by side (the JACK lane's halves, .ci/live-lanes) each hold a shared lock on
    /// `registryLockPath` for their whole life, from their first server on. The one that finds no other holder
    /// takes the lock exclusive, clears, then shares it; one that finds it exclusive waits until the clearing is
    /// done. Without it, a process starting while the other had no jackd between two tests removed the registry
    /// that process had mapped: its next server registered in a new one, which its clients never read. (LinkHut's
    /// and the Link MIDI clock's tests start their jackd without this type: the Link lane never runs beside the
    /// JACK lane.) When the lock cannot be had, it says so on standard error and nothing is cleared.
    private static let clearedStaleRegistry: Bool = {
        // Opened read-only (flock needs no more), and made only when missing: opening another user's file in /tmp
        // with O_CREAT fails where the kernel protects regular files in sticky folders (fs.protected_regular).
        var lock = open(registryLockPath, O_RDONLY | O_CLOEXEC)
        if lock < 0, errno == ENOENT {
            lock = open(registryLockPath, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
            if lock >= 0 { fchmod(lock, 0o666) } else { lock = open(registryLockPath, O_RDONLY | O_CLOEXEC) }
        }
        func held(_ operation: Int32) -> Bool {
            while flock(lock, operation) != 0 {
                guard errno == EINTR else { return false }
            }
            return true
        }
        func warn(_ what: String) {
            let text = "JackServer: \(what) \(registryLockPath): \(String(cString: strerror(errno))); not clearing\n"
            FileHandle.standardError.write(Data(text.utf8))
        }
        guard lock >= 0 else {
            warn("cannot open")
            return false
        }
        // Kept open (and the lock held) until the process ends.
        guard held(LOCK_EX | LOCK_NB) else {
            if errno != EWOULDBLOCK { warn("cannot lock") }
            if !held(LOCK_SH) { warn("cannot share") }
            return false
        }
        defer { if !held(LOCK_SH) { warn("cannot share") } }
        let running = (try? ChildProcess("/usr/bin/pgrep", ["-x", "jackd"]).wait())?.status == 0
        guard !running else { return false }
        let shm = "/dev/shm"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: shm)) ?? []
        for name in names where name == "jack-shm-registry" || name.contains("metronome-test") || isSegment(name) {
            unlink("\(shm)/\(name)")
        }
        return true
    }()

    /// Whether `name` in /dev/shm is one of the segments JACK2's registry indexes (`jack-UID-INDEX`). They go with the
    /// registry: a server registered in a new one maps the first free index's file as it finds it, and a killed
    /// server's engine kept its transport frame there. Its new transport then started from that frame, not 0 (every
    /// run of `JackTransportReconnectTests` after one that ended with its server killed: clicks from 48 000).
    public static func isSegment(_ name: String) -> Bool {
        let fields = name.split(separator: "-", omittingEmptySubsequences: false)
        let isNumber = { (field: Substring) in !field.isEmpty && field.allSatisfy { $0.isASCII && $0.isNumber } }
        return fields.count == 3 && fields[0] == "jack" && isNumber(fields[1]) && isNumber(fields[2])
    }

    /// The lock test processes using JACK share (`clearedStaleRegistry`).
    static let registryLockPath = "/tmp/metronome-test-jack-registry.lock"

    deinit { stop() }

    /// The environment of a client of this server: the test's own, with JACK_DEFAULT_SERVER set.
    public var clientEnvironment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["JACK_DEFAULT_SERVER"] = name
        environment["JACK_NO_START_SERVER"] = "1"
        return environment
    }

    /// Starts (or, after `kill`, starts again) the daemon under the same name, and waits until `jack_lsp` lists its
    /// ports.
    ///
    /// With `listing` false it returns once the daemon is spawned, opening no client: for a server started again
    /// while a client of ours tries to come back on it, whose own line then says it is up. A listing client that
    /// closes while ours opens can leave ours bound to that client's futex (libjack's race, docs/jack.md,
    /// "A client that leaves while ours joins"): a client that later takes its number is never woken by ours
    /// (`JackMIDITests.resyncAfterServerReturn`'s reader read nothing in 9 of 28 runs that polled).
    public func start(listing: Bool = true) throws {
        daemon = try ChildProcess(
            "/usr/bin/jackd", ["-n", name, "-R", "-d", "dummy", "-r", String(rate), "-p", String(period)],
            environment: clientEnvironment)
        guard listing else { return }
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let ports = try? ChildProcess(
                "/usr/bin/stdbuf", ["-oL", "/usr/bin/jack_lsp", "-s", name], environment: clientEnvironment
            ).wait(
                killingAfter: 3)
            if ports?.status == 0, ports?.standardOutput.contains("system:playback_1") == true { return }
            usleep(50_000)
        }
        throw JackServerError.notReady(name)
    }

    /// The server's log so far: each stream as written, the daemons' before a restart (`kill` or `stop`, then
    /// `start`) first.
    private var log: (output: String, error: String) {
        (earlierLog.output + (daemon?.output ?? ""), earlierLog.error + (daemon?.errorOutput ?? ""))
    }

    /// The last `lines` lines of the server's log (standard output and error, across restarts), for a failure's
    /// message.
    public func logTail(lines: Int) -> String {
        let log = log
        let all = (log.output + "\n" + log.error).split(separator: "\n", omittingEmptySubsequences: true)
        return all.suffix(lines).joined(separator: "\n")
    }

    /// A place in the server's log (across restarts): where a checked window starts.
    public struct LogMark: Sendable {
        fileprivate let output: Int
        fileprivate let error: Int
    }

    /// Where the server's log is now: take it when the window a test checks starts (the daemon writes its log as it
    /// runs, so what comes after is the window's).
    public var logMark: LogMark {
        let log = log
        return LogMark(output: log.output.utf8.count, error: log.error.utf8.count)
    }

    /// The xruns the server's log reports since `mark` (all of them without): its own cycles that started late (the
    /// dummy driver's "JackTimedDriver::Process XRun"), and, by client, cycles a client had not finished
    /// ("JackEngine::XRun: client = NAME was not finished, state = STATE" or "client NAME finished after current
    /// callback").
    public func xrunLog(since mark: LogMark? = nil, until end: LogMark? = nil) -> XrunLog {
        let log = log
        func part(_ text: String, from start: Int, to end: Int?) -> String {
            let bytes = text.utf8.dropFirst(start)
            return String(decoding: end.map { bytes.prefix(max(0, $0 - start)) } ?? bytes, as: UTF8.self)
        }
        return XrunLog(
            parsing: part(log.output, from: mark?.output ?? 0, to: end?.output) + "\n"
                + part(log.error, from: mark?.error ?? 0, to: end?.error))
    }

    /// The parts of the server's log a test checks: from each start to its end (or on).
    public struct LogWindow: Sendable {
        public var parts: [(start: LogMark, end: LogMark?)]

        public init(_ parts: [(start: LogMark, end: LogMark?)]) { self.parts = parts }
    }

    /// The xruns of a window's parts together.
    public func xrunLog(in window: LogWindow) -> XrunLog {
        window.parts.reduce(XrunLog()) { $0 + xrunLog(since: $1.start, until: $1.end) }
    }

    /// For `repeatedOnlyForOutsideCauses`: why a run whose checks failed (`problem`, with its figures: nil when they
    /// pass) may be run again, or nil when it stands (its checks then pass or fail it).
    ///
    /// A run is repeated only when late cycles that are not ours, inside the checked window (from `mark`), explain
    /// it: the server's own cycle late, a recorder's or peer's, or our client woken late (the server found it
    /// "Triggered": its real-time thread not yet started, as the machine does to every client, docs/benchmarks.md,
    /// "JACK"); and only as far as they can: a period per late cycle (`framesOff`, from `framesOff(_:every:)` or the
    /// test's own count of how far its frames are off). Never when our own figures show a callback of ours over half
    /// a period on the CPU or waiting, or are missing (`ours`), or when no late cycle but ours is in the window: a
    /// cycle of ours missed with nothing outside to explain it is ours. A cycle the server found our client overran
    /// in ("Running", still in its callback, or finished after the cycle) counts as the machine's only when our
    /// figures show no such callback: it was preempted, every callback's work under half a period (the faults
    /// `.ci/faults` injects are work on the CPU, and are refused). Prints the verdict with the window's log and our
    /// figures, repeated or not.
    /// - Parameter ourClients: our clients' names in the server's log.
    public func outsideCause(
        failing problem: String?, framesOff: Int, since mark: LogMark, ours: ClientTiming?,
        ourClients: Set<String> = ["metronome"]
    ) -> String? {
        outsideCause(
            failing: problem, framesOff: framesOff, in: LogWindow([(mark, nil)]), ours: ours, ourClients: ourClients)
    }

    /// A live run of a command played with `--verbose` on this server, for `repeatedOnlyForOutsideCauses`: `value`,
    /// with the outside cause `outsideCause` finds for `problem` from `mark` on, our figures read from the command's
    /// `standardError`.
    public func liveRun<Value>(
        _ value: Value, failing problem: String?, framesOff: Int, since mark: LogMark, verbose standardError: String
    ) -> LiveAttempt<Value> {
        LiveAttempt(
            value,
            outsideCause: outsideCause(
                failing: problem, framesOff: framesOff, since: mark, ours: ClientTiming(verbose: standardError)))
    }

    /// As above, for a window of several parts (a run across a restart: each server's recording).
    public func outsideCause(
        failing problem: String?, framesOff: Int, in checked: LogWindow, ours: ClientTiming?,
        ourClients: Set<String> = ["metronome"]
    ) -> String? {
        guard let problem else { return nil }
        let window = xrunLog(in: checked)
        // A cycle the server found our client still running in is ours unless our figures show every callback of
        // ours on the CPU (or waiting) less than half a period: then the machine preempted it, as it wakes any
        // client late.
        let outside = window.lateCycles(outside: ours.map { $0.overran ? ourClients : [] } ?? ourClients)
        let refusal: String? =
            if let ours {
                if ours.overran {
                    "our process callback overran (\(ours))"
                } else if outside == 0 {
                    "no late cycle but ours in the window"
                } else if framesOff >= Self.unexplained {
                    "an interval off by no whole number of periods (up to 8), which no late cycle explains"
                } else if framesOff > outside * period {
                    "off by \(framesOff) frames, more than a period (\(period)) for each of \(outside) late cycle(s)"
                } else {
                    nil
                }
            } else {
                "our client's figures are missing"
            }
        let figures =
            "\(problem); in the checked window on server \(name): \(window); ours: "
            + (ours.map { "\($0)" } ?? "no figures")
        guard let refusal else { return "\(figures); explained by \(outside) late cycle(s) not ours" }
        print("live run not repeated (\(refusal)): \(figures)")
        return nil
    }

    /// For `repeatedOnlyForOutsideCauses`, a run of a client of ours that keeps no figures of its own cycles
    /// (`metronome clock`'s listener): why a run that lost `lost` MIDI messages sent into it (`problem`, nil when its
    /// checks pass) may be run again, or nil when it stands.
    ///
    /// A message is lost only in a cycle the reader was not called in: its sender's output is the next cycle's by the
    /// time it runs. A late driver cycle still calls every client, and a sender called late writes what came due
    /// once it runs (measured: a sender stopped for 50 ms lost nothing). So each lost message needs a cycle inside the
    /// window (from `mark`) in which our client was not run: woken late, "Triggered" or "NotTriggered" in the
    /// server's log (what the machine does to any client, or a late client upstream leaves ours waiting). Without
    /// figures to show a callback of ours was preempted, any cycle our client overran ("Running", or finished after
    /// the cycle) is ours and refuses the repeat; so does a failure that lost nothing (a message on the wrong frame,
    /// a wrong reading), which no late cycle explains. Prints the verdict with the window's log.
    public func outsideCause(
        failing problem: String?, messagesLost lost: Int, since mark: LogMark, ourClients: Set<String> = ["metronome"]
    ) -> String? {
        guard let problem else { return nil }
        let window = xrunLog(since: mark)
        let ourOverruns = ourClients.reduce(0) { $0 + window.overruns[$1, default: 0] }
        let notRun = ourClients.reduce(0) { $0 + window.clientsLate[$1, default: 0] } - ourOverruns
        let refusal: String? =
            if ourOverruns > 0 {
                "our client overran \(ourOverruns) cycle(s), with no figures of its own to show it was preempted"
            } else if lost == 0 {
                "no message lost: what went wrong no late cycle explains"
            } else if notRun < lost {
                "\(lost) message(s) lost, more than the \(notRun) cycle(s) our client was not run in"
            } else {
                nil
            }
        let figures = "\(problem); in the checked window on server \(name): \(window)"
        guard let refusal else {
            return "\(figures); \(lost) lost, explained by \(notRun) cycle(s) our client was woken late in"
        }
        print("live run not repeated (\(refusal)): \(figures)")
        return nil
    }

    /// How far a recording's intervals (`gaps`, a list per recorded channel) are off `interval`, for `outsideCause`,
    /// in frames: in the channel most off, a period (`period`) for each period an interval is off a whole number of
    /// intervals, or far more (`unexplained`) for one that no whole number of periods puts on them.
    ///
    /// A recorder such as jack_capture writes the cycles it is called for one after another: a cycle the server ran
    /// without calling it leaves a period out of its file (an interval a period short, or a click lost: a whole number
    /// of intervals a period short); one the server ran without calling the player moves every click after it a
    /// period later (an interval a period long; the recorder may read the player's last period again, a click
    /// doubled a period on). So each late cycle moves one interval by exactly a period: two intervals off need two
    /// late cycles, and an interval off by less than a period (a click of ours a few frames late) none can explain.
    public static func framesOff(_ gaps: [[Int]], every interval: Int, period: Int) -> Int {
        gaps.map { channel in
            channel.reduce(0) { moved, gap in
                if gap == interval { return moved }
                // The fewest periods that put the interval on a whole number of intervals (none with no period).
                let periods = (1...8).first { periods in
                    let shorter = gap + periods * period
                    let longer = gap - periods * period
                    return (shorter % interval == 0 && shorter >= interval) || (longer >= 0 && longer % interval == 0)
                }
                return moved + (periods.map { $0 * period } ?? unexplained)
            }
        }.max() ?? 0
    }

    /// What `framesOff` counts for an interval no late cycle can explain: more than any window's late cycles.
    public static let unexplained = 1 << 40

    /// What the server's log says of xruns.
    public struct XrunLog: Equatable, CustomStringConvertible {
        /// The server's own cycles that started late.
        public var driverLate = 0
        /// Cycles each client (by name) had not finished in time, whatever it was doing.
        public var clientsLate: [String: Int] = [:]
        /// Of those, the cycles each client was still in its process callback ("state = Running") or finished after
        /// the cycle: its callback ran too long. The others it had not started: woken late.
        public var overruns: [String: Int] = [:]
        /// Cycles the server ran on a graph that had not finished the cycle before ("JackAudioDriver::
        /// ProcessGraphAsyncMaster: Process error"), whoever was late: its clients were not called in them. jackd
        /// names the late clients only for the first of a run of them, and only when that cycle began less than two
        /// periods after the last that was whole (JackEngine::ProcessCurrent), so a driver woken late that long
        /// leaves this line alone. Printed for a failure's account; no cause is read from it.
        public var unfinishedGraphs = 0

        public init() {}

        /// Reads the xrun lines of a jackd log.
        public init(parsing text: String) {
            for line in text.split(separator: "\n") {
                if line.hasPrefix("JackTimedDriver::Process XRun") {
                    driverLate += 1
                } else if line.hasPrefix("JackAudioDriver::ProcessGraphAsyncMaster: Process error") {
                    unfinishedGraphs += 1
                } else if line.hasPrefix("JackEngine::XRun: client") {
                    let words = line.dropFirst("JackEngine::XRun: client".count).split(separator: " ")
                    guard let name = words.first(where: { $0 != "=" }).map(String.init) else { continue }
                    clientsLate[name, default: 0] += 1
                    if line.contains("state = Running") || line.hasSuffix("finished after current callback") {
                        overruns[name, default: 0] += 1
                    }
                }
            }
        }

        /// Two logs' xruns together.
        public static func + (left: XrunLog, right: XrunLog) -> XrunLog {
            var sum = left
            sum.driverLate += right.driverLate
            sum.unfinishedGraphs += right.unfinishedGraphs
            sum.clientsLate.merge(right.clientsLate, uniquingKeysWith: +)
            sum.overruns.merge(right.overruns, uniquingKeysWith: +)
            return sum
        }

        /// The late cycles of the server and its clients together.
        public var lateCycles: Int { driverLate + clientsLate.values.reduce(0, +) }

        /// The late cycles but `ours`' overruns: the server's, the other clients', ours woken late.
        public func lateCycles(outside ours: Set<String>) -> Int {
            lateCycles - ours.reduce(0) { $0 + overruns[$1, default: 0] }
        }

        public var description: String {
            let clients = clientsLate.sorted { $0.key < $1.key }.map { client in
                let overran = overruns[client.key, default: 0]
                return "\(client.key) \(client.value)" + (overran > 0 ? " (\(overran) overran)" : "")
            }
            return "driver late \(driverLate), clients late: "
                + (clients.isEmpty ? "none" : clients.joined(separator: ", "))
                + ", cycles run on an unfinished graph \(unfinishedGraphs)"
        }
    }

    /// Our client's own figures over a run, for `outsideCause`: as `metronome --driver jack --verbose` reports them,
    /// or a `JackOutput` counts them.
    public struct ClientTiming: CustomStringConvertible, Sendable {
        /// Cycles the server ran without calling us (each moves what follows a period later).
        public var missedCycles: Int
        /// The longest process callback, and the period, in microseconds.
        public var longestCallback: Int
        public var periodMicroseconds: Int
        /// Process callbacks over half a period.
        public var slowCallbacks: Int
        /// Process callbacks in all.
        public var callbacks: Int
        /// Callbacks over half a period that were on the CPU, or waiting, more than half a period: slow of our own
        /// (the others were preempted by the machine).
        public var slowOfOurOwn: Int
        /// The longest time on the CPU of one callback, in microseconds.
        public var longestOnCPU: Int
        /// The frames that callback rendered into nothing (a catch-up or a skip), or nil when not reported.
        public var longestOnCPUIntoNothing: Int?
        /// Process callbacks after the first that faulted a page in, or nil when not reported.
        public var faultingCallbacks: Int?
        /// Where `--verbose` says the last client's runs of missed cycles were ("FRAME×CYCLES", " late" when the call
        /// after was woken late rather than moved), or nil when not reported.
        public var missedAt: String?

        public init(
            missedCycles: Int, longestCallback: Int, periodMicroseconds: Int, slowCallbacks: Int, callbacks: Int,
            slowOfOurOwn: Int, longestOnCPU: Int, longestOnCPUIntoNothing: Int? = nil, faultingCallbacks: Int? = nil
        ) {
            self.missedCycles = missedCycles
            self.longestCallback = longestCallback
            self.periodMicroseconds = periodMicroseconds
            self.slowCallbacks = slowCallbacks
            self.callbacks = callbacks
            self.slowOfOurOwn = slowOfOurOwn
            self.longestOnCPU = longestOnCPU
            self.longestOnCPUIntoNothing = longestOnCPUIntoNothing
            self.faultingCallbacks = faultingCallbacks
        }

        /// From `--verbose`'s lines (a reconnected run's last client's callbacks, its missed cycles the whole
        /// run's); nil when one is missing.
        public init?(verbose standardError: String) {
            let lines = standardError.split(separator: "\n")
            func figure(_ prefix: String) -> Int? {
                lines.first { $0.hasPrefix("metronome: " + prefix) }
                    .flatMap { Int($0.dropFirst(("metronome: " + prefix).count).prefix { $0.isNumber }) }
            }
            // "JACK: client 'metronome' on server 'S', period 128 frames (2.9 ms) at 44100 Hz"
            guard let client = lines.first(where: { $0.hasPrefix("metronome: JACK: client '") }),
                let period = client.split(separator: ", period ").last.flatMap({ Int($0.prefix { $0.isNumber }) }),
                let rate = client.split(separator: " at ").last.flatMap({ Int($0.prefix { $0.isNumber }) }),
                rate > 0, let missed = figure("cycles the server ran without calling us: "),
                let longest = figure("longest process callback: "),
                let slow = figure("process callbacks over half a period: "),
                let callbacks = figure("process callbacks: "),
                let ownSlow = figure("callbacks over half a period of our own (on the CPU or waiting that long): "),
                let onCPU = figure("longest callback on the CPU: ")
            else { return nil }
            self.init(
                missedCycles: missed, longestCallback: longest, periodMicroseconds: period * 1_000_000 / rate,
                slowCallbacks: slow, callbacks: callbacks, slowOfOurOwn: ownSlow, longestOnCPU: onCPU,
                longestOnCPUIntoNothing: figure(
                    "frames the process callback longest on the CPU rendered into nothing (a catch-up or a skip): "),
                faultingCallbacks: figure("process callbacks that faulted a page in, after the first: "))
            missedAt = lines.first { $0.hasPrefix("metronome: cycles the server ran without calling us: ") }
                .flatMap { $0.split(separator: "at frame times: ", maxSplits: 1).dropFirst().first }
                .map { String($0.dropLast()) }
        }

        /// Whether a callback of ours ran over half its period of its own: on the CPU, or waiting, that long. One
        /// the machine preempted (over half a period, on the CPU less) is not ours.
        public var overran: Bool { slowOfOurOwn > 0 || longestOnCPU * 2 > periodMicroseconds }

        public var description: String {
            "longest process callback \(longestCallback) µs of a \(periodMicroseconds) µs period, \(slowCallbacks) of "
                + "\(callbacks) over half, \(slowOfOurOwn) of our own, longest on the CPU \(longestOnCPU) µs"
                + (longestOnCPUIntoNothing.map { " (\($0) frames rendered into nothing)" } ?? "")
                + (faultingCallbacks.map { ", \($0) faulting a page in" } ?? "") + "; "
                + "cycles the server ran without calling us \(missedCycles)"
        }
    }

    /// Kills the daemon at once (SIGKILL): its clients lose it as they would a crashed server.
    public func kill() {
        daemon?.send(SIGKILL)
        retire()
    }

    /// Waits for the daemon and keeps its log.
    private func retire() {
        guard let daemon else { return }
        _ = daemon.wait()
        earlierLog.output += daemon.output
        earlierLog.error += daemon.errorOutput
        self.daemon = nil
    }

    /// Stops the daemon (SIGTERM) and waits for it.
    public func stop() {
        daemon?.send(SIGTERM)
        retire()
    }

    /// Records `ports` (one channel each) with jack_capture for `settle + seconds`, as 32-bit float, and returns the
    /// last `seconds`: jack_capture joining the graph (a new client, its connections) can cost the dummy backend a
    /// cycle at small periods, so the first moments are left out, of the recording and of the checked window.
    /// - Returns: one array of samples per port, and where the server's log was when the kept part began.
    public func record(_ ports: [String], seconds: Double, settle: Double = 0.7) throws -> (
        channels: [[Float]], window: LogMark
    ) {
        let path = NSTemporaryDirectory() + "metronome-jack-\(UUID().uuidString.prefix(8)).wav"
        defer { unlink(path) }
        let recorder = try startRecording(ports, seconds: settle + seconds, to: path)
        usleep(useconds_t(settle * 1_000_000))
        let window = logMark
        let result = recorder.wait()
        guard result.status == 0 else { throw JackServerError.recordingFailed(result.standardError) }
        let skipped = Int(settle * Double(rate))
        return (try AudioFileReader.read(path: path).channels.map { Array($0.dropFirst(skipped)) }, window)
    }

    /// Starts jack_capture on `ports` for `seconds` into `path` (32-bit float WAV); the caller waits for it.
    public func startRecording(_ ports: [String], seconds: Double, to path: String) throws -> ChildProcess {
        try ChildProcess(
            "/usr/bin/jack_capture",
            ports.flatMap { ["--port", $0] } + [
                // `-d`: jack_capture 0.9.73 refuses the long --duration. Its default sample format is 32-bit float.
                "--channels", String(ports.count), "-d", String(seconds), "--format", "wav", "--no-stdin",
                "--disable-console", path,
            ],
            environment: clientEnvironment)
    }

    public enum JackServerError: Error {
        case notReady(String)
        case recordingFailed(String)
    }
}

import Foundation

/// A child process started with posix_spawn and reaped with waitpid by its owner alone. Its standard output and
/// error go to files, read after it exits, so no pipe can fill up and nothing else can reap it. (Foundation's
/// Process was seen to leave an exited child unreaped while another child kept running.)
public final class ChildProcess: @unchecked Sendable {
    public let pid: pid_t
    private let outputPath: String
    private let errorPath: String
    private var exitStatus: Int32?

    /// Starts `path` with `arguments`; standard input is /dev/null, or the file (a FIFO the test writes) named.
    public init(
        _ path: String, _ arguments: [String], environment: [String: String]? = nil, standardInput: String = "/dev/null"
    ) throws {
        let base = NSTemporaryDirectory() + "metronome-child-\(UUID().uuidString.prefix(8))"
        outputPath = base + ".out"
        errorPath = base + ".err"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, standardInput, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Start with default signal dispositions and an empty mask, whatever the test runner has set.
        var all = sigset_t()
        sigfillset(&all)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let environmentStrings = ChildProcess.environment(environment).map { "\($0.key)=\($0.value)" }
        var argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        var envp: [UnsafeMutablePointer<CChar>?] = environmentStrings.map { strdup($0) } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var child: pid_t = 0
        let result = posix_spawn(&child, path, &actions, &attributes, &argv, &envp)
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EINVAL) }
        pid = child
    }

    /// The folder every child's `XDG_DATA_HOME` names unless the test sets another one: a temporary folder of this
    /// test process's, so that no live run a test starts records its practice log under the real home.
    public static let dataHome: String = {
        let path = NSTemporaryDirectory() + "metronome-test-data-\(getpid())"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    /// The environment a child gets: `environment` (nil: this process's), with `XDG_DATA_HOME` set to `dataHome`
    /// unless `environment` names a folder of its own (one other than this process's).
    static func environment(_ environment: [String: String]?) -> [String: String] {
        let inherited = ProcessInfo.processInfo.environment
        var result = environment ?? inherited
        if result["XDG_DATA_HOME"] == nil || result["XDG_DATA_HOME"] == inherited["XDG_DATA_HOME"] {
            result["XDG_DATA_HOME"] = dataHome
        }
        return result
    }

    deinit {
        if exitStatus == nil {
            kill(pid, SIGKILL)
            _ = wait()
        }
        unlink(outputPath)
        unlink(errorPath)
    }

    /// Sends a signal.
    public func send(_ signal: Int32) { kill(pid, signal) }

    /// Sends SIGINT unless the child has exited, and waits for it: for a helper that stays a while in case it is
    /// needed (a test's Link peer), once the test is done with it. One that has not ended 10 s later is killed
    /// (status 137): a hang fails its test instead of holding the lane.
    @discardableResult
    public func interruptAndWait() -> CommandResult {
        if !hasExited { send(SIGINT) }
        return wait(killingAfter: 10)
    }

    /// Whether the child has exited (reaping it if so).
    public var hasExited: Bool {
        if exitStatus != nil { return true }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return false }
        exitStatus = ChildProcess.decode(status)
        return true
    }

    /// Waits for the child to exit and returns its exit status (128 + n when killed by signal n) and output.
    @discardableResult
    public func wait() -> CommandResult {
        if exitStatus == nil {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            exitStatus = ChildProcess.decode(status)
        }
        return CommandResult(status: exitStatus!, standardOutput: output, standardError: errorOutput)
    }

    /// Waits for the child to exit, killing it (SIGKILL, status 137) once `seconds` have passed: for a tool that can
    /// hang after its work is done (libjack's `jack_client_close` was seen to deadlock in `jack_lsp` for minutes, its
    /// listing already printed: the main thread on a mutex, the client's thread on a condition), so that a test
    /// reads what it printed instead of waiting for ever.
    @discardableResult
    public func wait(killingAfter seconds: Double) -> CommandResult {
        let deadline = Date().addingTimeInterval(seconds)
        while !hasExited {
            if Date() >= deadline {
                kill(pid, SIGKILL)
                break
            }
            usleep(5_000)
        }
        return wait()
    }

    /// What the child has written to standard output so far.
    public var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

    /// What the child has written to standard error so far.
    public var errorOutput: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }

    private static func decode(_ status: Int32) -> Int32 {
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }
}

import Foundation

/// A shell command run at a terminal (`script -qfec COMMAND /dev/null` gives it one) whose keys the test types: its
/// standard input is a FIFO that the test holds open for writing from the start, so the child's open of it does not
/// wait (posix_spawn waits for it). What the terminal showed is the result's standard output.
public final class KeyedTerminal {
    /// The `script` process.
    public let process: ChildProcess
    private let writer: Int32
    /// Holds the FIFO.
    private let scratch: Scratch

    /// Starts `command` at a terminal.
    /// - Parameters:
    ///   - command: the shell command line.
    ///   - environment: the command's environment.
    ///   - start: how to start a program with a standard input (default: here; a network namespace's `start` too).
    public init(
        _ command: String, environment: [String: String],
        start: (String, [String], [String: String]?, String) throws -> ChildProcess = {
            try ChildProcess($0, $1, environment: $2, standardInput: $3)
        }
    ) throws {
        scratch = try Scratch()
        let keys = scratch.file("keys")
        guard mkfifo(keys, 0o600) == 0 else { throw TerminalError("mkfifo \(keys): errno \(errno)") }
        writer = open(keys, O_RDWR)
        guard writer >= 0 else { throw TerminalError("open \(keys): errno \(errno)") }
        do {
            process = try start("/usr/bin/script", ["-qfec", command, "/dev/null"], environment, keys)
        } catch {
            close(writer)
            throw error
        }
    }

    deinit { close(writer) }

    /// Types `text` (escape sequences included), after waiting `milliseconds`.
    public func type(_ text: String, after milliseconds: UInt32 = 0) {
        usleep(milliseconds * 1000)
        _ = text.withCString { write(writer, $0, strlen($0)) }
    }

    /// Waits for the command to end.
    public func wait() -> CommandResult { process.wait() }

    /// What the terminal has shown so far.
    public var output: String { process.output }

    /// Why a terminal could not be set up.
    public struct TerminalError: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}

import Foundation
import MetronomeLive
import MetronomeTestSupport
import Testing

/// A unix socket that accepts connections and never says a word: the kernel completes each connection from the
/// listen backlog; `accept` tells the test a client has arrived.
private final class SilentServer {
    let path: String
    let socket: Int32

    init(_ path: String) throws {
        self.path = path
        socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            path.utf8CString.withUnsafeBytes {
                raw.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0.prefix(raw.count - 1)))
            }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0, listen(socket, 8) == 0 else { throw POSIXError(.EADDRINUSE) }
    }

    /// Waits (5 s at most) until a client has connected; keeps the connection open and silent.
    func waitForClient() -> Bool {
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        guard Glibc.poll(&descriptor, 1, 5000) == 1 else { return false }
        return accept(socket, nil, nil) >= 0
    }

    deinit {
        close(socket)
        unlink(path)
    }
}

/// In the PulseAudio lane (release build, one test at a time, the normal scheduling class) rather than with the
/// command-line tests: two of these time the command (Ctrl-C within 0.5 s, the 5 s wait), and AddressSanitizer's lane,
/// where those run in parallel in the idle class beside the JACK lane, once took 585 ms from Ctrl-C to the exit
/// (21 to 28 ms by hand under AddressSanitizer in the idle class, with a full CPU load beside or not; the product polls
/// the signal every 10 ms).
@Suite("Live playback with no server to play on: refused, or accepted and never answered", .serialized)
struct NoSoundServerTests {
    @Test("No server: one line naming the server tried and suggesting --output, exit 69")
    func noServer() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["PULSE_SERVER"] = "unix:/nonexistent/metronome/native"
        let result = try CommandRunner.run(["--bpm", "120"], environment: environment)
        #expect(result.status == 69)
        #expect(
            result.standardError
                == "metronome: error: cannot connect to PulseAudio at unix:/nonexistent/metronome/native (PULSE_SERVER): Connection refused; render to a file with --output FILE.wav\n"
        )
    }

    /// A server in `scratch` that accepts and never answers, and the environment that sends the command to it.
    private static func silentServer(in scratch: Scratch) throws -> (SilentServer, [String: String]) {
        let silent = try SilentServer(scratch.file("native"))
        var environment = ProcessInfo.processInfo.environment
        environment["PULSE_SERVER"] = "unix:\(silent.path)"
        return (silent, environment)
    }

    @Test("A server that accepts and never answers: Ctrl-C stops at once, exit 130 with one line")
    func silentServerInterrupted() throws {
        let scratch = try Scratch()
        let (silent, environment) = try Self.silentServer(in: scratch)
        let command = try CommandRunner.start(["--bpm", "120"], environment: environment)
        #expect(silent.waitForClient())
        // The client has connected and now waits for an answer that never comes.
        usleep(200_000)
        let (elapsed, result) = interrupted(command, within: 5)
        print("silent server, SIGINT → exit: \(Int(elapsed * 1000)) ms")
        #expect(elapsed < 0.5)
        #expect(result.status == 130)
        #expect(
            result.standardError
                == "metronome: error: interrupted while waiting for PulseAudio at unix:\(silent.path) (PULSE_SERVER)\n")
    }

    @Test("A server that accepts and never answers: after 5 s, exit 69 saying so")
    func silentServerTimesOut() throws {
        let scratch = try Scratch()
        let (silent, environment) = try Self.silentServer(in: scratch)
        let started = now()
        let result = try CommandRunner.run(["--bpm", "120"], environment: environment)
        let elapsed = now() - started
        #expect((5..<6.5).contains(elapsed))
        #expect(result.status == 69)
        #expect(
            result.standardError
                == "metronome: error: PulseAudio at unix:\(silent.path) (PULSE_SERVER) did not answer within 5 s; "
                + "render to a file with --output FILE.wav\n")
    }
}

import Foundation
import MetronomeTestSupport
import Testing

/// `metronome 120 --link` at a terminal (`script` gives it one), inside the test's namespace with a Python peer.
@Suite("Link at a terminal: the status line and the keys", .serialized)
struct LinkTerminalTests {
    @Test("At a terminal with --link --link-start-stop: the status line shows the peer, and space stops the session and starts it again, the peer following each")
    func statusLineAndSpace() throws {
        let lab = try LinkLab()
        let scratch = try Scratch()
        let keys = scratch.file("keys")
        #expect(mkfifo(keys, 0o600) == 0)
        // Held open for writing first, so the child's open of the FIFO does not wait.
        let writer = open(keys, O_RDWR)
        #expect(writer >= 0)
        defer { close(writer) }
        let peer = try lab.peer("startstop_peer", ["120", "wait", "10"])
        usleep(1_000_000)
        let inner = "\(CommandRunner.executable) 120 --link --link-start-stop --duration 30"
        let terminal = try lab.namespace.start(
            "/usr/bin/script", ["-qfec", inner, "/dev/null"], environment: lab.server.clientEnvironment,
            standardInput: keys)
        func type(_ text: String, after milliseconds: UInt32) {
            usleep(milliseconds * 1000)
            _ = text.withCString { write(writer, $0, strlen($0)) }
        }
        // Ours starts the session (on its next bar, within 2 s); space stops it, space starts it again; q quits.
        type(" ", after: 3000)
        type(" ", after: 1500)
        type("q", after: 3000)
        let result = terminal.wait()
        let peerResult = peer.wait()
        #expect(result.status == 0, "\(result.standardOutput)")
        #expect(result.standardOutput.contains(" 120 BPM  4/4  X · · ·  Link: 1 peer"), "\(result.standardOutput)")
        #expect(peerResult.standardOutput == "ready\nplaying 1\nplaying 0\nplaying 1\n")
    }
}

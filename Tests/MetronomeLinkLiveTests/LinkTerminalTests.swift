import Foundation
import MetronomeTestSupport
import Testing

/// `metronome 120 --link` at a terminal (`script` gives it one), inside the test's namespace with a Python peer.
@Suite("Link at a terminal: the status line and the keys", .serialized)
struct LinkTerminalTests {
    @Test(
        "At a terminal with --link --link-start-stop: the status line shows the peer, and space stops the session and starts it again, the peer following each"
    )
    func statusLineAndSpace() throws {
        let lab = try LinkLab()
        let peer = try lab.peer("startstop_peer", ["120", "wait", "10"])
        usleep(1_000_000)
        let terminal = try KeyedTerminal(
            "\(CommandRunner.executable) 120 --link --link-start-stop --duration 30",
            environment: lab.server.clientEnvironment, start: lab.namespace.start)
        // Ours starts the session (on its next bar, within 2 s); space stops it, space starts it again; q quits.
        terminal.type(" ", after: 3000)
        terminal.type(" ", after: 1500)
        terminal.type("q", after: 3000)
        let result = terminal.wait()
        // The peer watches 1 s more: our quit leaves the session playing for it (no `playing 0` after it).
        usleep(1_000_000)
        let peerResult = peer.interruptAndWait()
        #expect(result.status == 0, "\(result.standardOutput)")
        #expect(
            result.standardOutput.contains(" 120 BPM  4/4  X · · ·  vol 100%  Link: 1 peer"), "\(result.standardOutput)"
        )
        #expect(peerResult.standardOutput == "ready\nplaying 1\nplaying 0\nplaying 1\n")
    }

    @Test(
        "At a terminal with --link: ↑ and → propose 110 and 111 to the peer, to the BPM, and four taps half a second apart take the session near 120"
    )
    func tempoKeysAndTapReachThePeer() throws {
        let lab = try LinkLab()
        let peer = try lab.peer("tempo_watch", ["100", "11"])
        usleep(1_000_000)
        let terminal = try KeyedTerminal(
            "\(CommandRunner.executable) 100 --link --duration 30",
            environment: lab.server.clientEnvironment, start: lab.namespace.start)
        terminal.type("\u{1B}[A", after: 2500)
        terminal.type("\u{1B}[C", after: 1000)
        for _ in 0..<4 { terminal.type("t", after: 500) }
        terminal.type("q", after: 2000)
        let result = terminal.wait()
        let peerResult = peer.interruptAndWait()
        #expect(result.status == 0, "\(result.standardOutput)")
        #expect(peerResult.status == 0, "\(peerResult.standardError)")
        let lines = peerResult.standardOutput.split(separator: "\n").map(String.init)
        #expect(Array(lines.prefix(3)) == ["ready", "tempo 110.0", "tempo 111.0"], "\(lines)")
        // Taps as a terminal delivers them: the last tapped tempo, whatever a key's few milliseconds of delay made it.
        let tapped = lines.dropFirst(3).compactMap { Double($0.split(separator: " ")[1]) }
        #expect(!tapped.isEmpty && (112...128).contains(tapped.last ?? 0), "\(lines)")
    }
}

import Foundation
import MetronomeOSC
import MetronomeTestSupport
import Testing

@Suite("metronome serve: keys on a pseudo-terminal, read back over OSC", .serialized)
struct ServeKeysTests {
    /// Asks the service for its state: the key/value pairs of `/metronome/state`.
    private func state(_ socket: OSCSocket, _ service: OSCEndpoint) throws -> [String: OSCArgument] {
        let pairs = socket.metronomeState(from: service, seconds: 3)
        if pairs.isEmpty { Issue.record("no /metronome/state reply") }
        return pairs
    }

    @Test("→ and ↑ step the tempo, t taps it, p pauses and continues, q quits with exit 0; the terminal is restored")
    func keys() throws {
        let server = try PulseServer()
        let terminal = try KeyedTerminal(
            "\(CommandRunner.executable) serve --bpm 120 --osc 127.0.0.1:0; stty -a",
            environment: server.clientEnvironment)
        let deadline = Date().addingTimeInterval(10)
        var port: UInt16?
        while port == nil, Date() < deadline {
            if let range = terminal.output.range(of: #"udp 127\.0\.0\.1:[0-9]+"#, options: .regularExpression) {
                port = UInt16(terminal.output[range].split(separator: ":").last!)
            }
            usleep(20_000)
        }
        let service = OSCEndpoint.loopback(port: try #require(port))
        let socket = try OSCSocket(binding: .loopback(port: 0))
        func type(_ text: String) { terminal.type(text) }

        usleep(500_000)
        type("\u{1B}[C")  // → +1
        usleep(700_000)
        #expect(try state(socket, service)["tempo"] == .float32(121))
        type("\u{1B}[A")  // ↑ +10
        usleep(700_000)
        #expect(try state(socket, service)["tempo"] == .float32(131))
        // Four taps 0.4 s apart: 150 BPM, give or take the FIFO's and the scheduler's few milliseconds.
        for _ in 0..<4 {
            type("t")
            usleep(400_000)
        }
        usleep(600_000)
        guard case .float32(let tapped) = try state(socket, service)["tempo"] else {
            Issue.record("no tempo")
            return
        }
        #expect(abs(tapped - 150) < 6, "tapped \(tapped)")
        type("p")
        usleep(1_000_000)
        #expect(try state(socket, service)["state"] == .string("paused"))
        type("p")
        usleep(300_000)
        #expect(try state(socket, service)["state"] == .string("playing"))
        type("q")
        let result = terminal.wait()
        #expect(result.status == 0)
        let screen = result.standardOutput
        #expect(!screen.contains("^[[C"))
        #expect(screen.contains(" icanon "))
        #expect(screen.contains(" echo "))
    }
}

import MetronomeTestSupport
import Testing

@Suite("Live options checked before any sound server is reached")
struct LiveOptionCheckTests {
    @Test(
        "--reconnect-timeout out of range, with --no-reconnect, or with --output is exit 64",
        arguments: [
            (
                ["--reconnect-timeout", "0"],
                "--reconnect-timeout 0: the timeout must be a number of seconds from 1 to 86400"
            ),
            (["--no-reconnect", "--reconnect-timeout", "5"], "--reconnect-timeout does not apply with --no-reconnect"),
            (
                ["--bars", "1", "--no-reconnect", "--output", "x.wav"],
                "--no-reconnect applies only to live playback, not with --output"
            ),
            (
                ["arp", "C", "--bars", "1", "--reconnect-timeout", "2", "--output", "x.wav"],
                "--reconnect-timeout applies only to live playback, not with --output"
            ),
        ])
    func reconnectOptionsChecked(arguments: [String], message: String) throws {
        let result = try CommandRunner.run(arguments)
        #expect(result.status == 64)
        #expect(result.standardError == "metronome: error: \(message)\n")
    }

    @Test("A port in use is exit 69 with one line naming it; an --osc that is not HOST:PORT is exit 64")
    func badAddresses() throws {
        let held = try UDPPort()
        let taken = try CommandRunner.run(["serve", "--osc", "127.0.0.1:\(held.port)", "--quiet"])
        #expect(taken.status == 69)
        #expect(
            taken.standardError
                == "metronome: error: cannot listen on UDP 127.0.0.1:\(held.port): Address already in use; choose "
                + "another with --osc HOST:PORT\n")
        let malformed = try CommandRunner.run(["serve", "--osc", "localhost", "--quiet"])
        #expect(malformed.status == 64)
        #expect(
            malformed.standardError
                == "metronome: error: --osc localhost: give HOST:PORT, for instance 127.0.0.1:7770\n")
    }
}

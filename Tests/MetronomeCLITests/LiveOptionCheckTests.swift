import Foundation
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

    /// Each is refused before a Link instance exists; they run inside a network namespace of their own all the same,
    /// so that a check that regressed could not enable Link in the machine's own.
    @Test(
        "--link's options: --quantum and --link-start-stop need --link, the quantum is 1 to 64 beats, a tempo outside Link's 20 to 999 BPM is refused, and none goes with --output: exit 64, one line",
        arguments: [
            (["--quantum", "4"], "--quantum applies only with --link"),
            (["--link-start-stop"], "--link-start-stop applies only with --link"),
            (["--link", "--quantum", "0.5"], "--quantum 0.5: the quantum must be a number of beats from 1 to 64"),
            (["--link", "--quantum", "x"], "--quantum x: the quantum must be a number of beats from 1 to 64"),
            (["10", "--link"], "--link: the tempo 10 BPM is outside a Link session's range, 20 to 999 BPM"),
            (["1000", "--link"], "--link: the tempo 1000 BPM is outside a Link session's range, 20 to 999 BPM"),
            (
                ["990", "--link", "--trainer", "+5/1:1000"],
                "--link: the tempo 1000 BPM is outside a Link session's range, 20 to 999 BPM"
            ),
            (["--bars", "1", "--link", "--output", "x.wav"], "--link applies only to live playback, not with --output"),
            (
                ["arp", "C", "--bars", "1", "--quantum", "3", "--output", "x.wav"],
                "--quantum applies only to live playback, not with --output"
            ),
        ])
    func linkOptionsChecked(arguments: [String], message: String) throws {
        let namespace = try NetworkNamespace()
        let result = try namespace.start(CommandRunner.executable, arguments).wait()
        #expect(result.status == 64)
        #expect(result.standardError == "metronome: error: \(message)\n")
    }

    /// Refused before any JACK server is asked (JACK_DEFAULT_SERVER names none, so a check that regressed would be
    /// exit 69 instead).
    @Test(
        "--driver's options: the driver is pulse or jack, JACK's options need --driver jack, PulseAudio's --device and --latency are refused with it, and --connect is one or two ports: exit 64, one line",
        arguments: [
            (["--driver", "alsa"], "--driver alsa: the driver is pulse or jack"),
            (["--client-name", "x"], "--client-name applies only with --driver jack"),
            (["--driver", "pulse", "--no-connect"], "--no-connect applies only with --driver jack"),
            (["--connect", "a:b"], "--connect applies only with --driver jack"),
            (
                ["--driver", "jack", "--device", "metro"],
                "--device names a PulseAudio sink; with --driver jack, use --connect PORT,…"
            ),
            (
                ["--driver", "jack", "--latency", "10"],
                "--latency is PulseAudio's; with --driver jack the latency is the server's period (jackd -p)"
            ),
            (
                ["--driver", "jack", "--connect", "a:b", "--no-connect"],
                "--connect and --no-connect cannot be used together; choose one"
            ),
            (
                ["--driver", "jack", "--connect", "a:b,,c:d"],
                "--connect a:b,,c:d: give one or two JACK ports separated by a comma: OUT_1[,OUT_2]"
            ),
            (
                ["--driver", "jack", "--client-name", "a:b"],
                "--client-name a:b: a client name is 1 to 64 bytes, without ':'"
            ),
            (
                ["--bars", "1", "--driver", "jack", "--output", "x.wav"],
                "--driver applies only to live playback, not with --output"
            ),
        ])
    func driverOptionsChecked(arguments: [String], message: String) throws {
        var environment = ProcessInfo.processInfo.environment
        environment["JACK_DEFAULT_SERVER"] = "metronome-no-such-server"
        let result = try ChildProcess(CommandRunner.executable, arguments, environment: environment).wait()
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

    @Test("--osc with a port alone listens on 127.0.0.1 at that port, and a port out of range is named as read")
    func barePort() throws {
        let held = try UDPPort()
        let taken = try CommandRunner.run(["serve", "--osc", "\(held.port)", "--quiet"])
        #expect(taken.status == 69)
        #expect(
            taken.standardError
                == "metronome: error: cannot listen on UDP 127.0.0.1:\(held.port): Address already in use; choose "
                + "another with --osc HOST:PORT\n")
        let outside = try CommandRunner.run(["serve", "--osc", "70000", "--quiet"])
        #expect(outside.status == 64)
        #expect(
            outside.standardError
                == "metronome: error: --osc 127.0.0.1:70000: the port must be a whole number from 0 to 65535 (0: any "
                + "free port)\n")
    }
}

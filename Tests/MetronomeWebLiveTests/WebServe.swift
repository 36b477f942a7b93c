import Foundation
import MetronomeTestSupport
import Testing

/// `metronome serve --osc 127.0.0.1:0 --http 127.0.0.1:0 --quiet --verbose …` (or another `--http`, in a network
/// namespace) playing into a private server, with
/// its OSC port and the web remote's URL (read from its lines on standard error).
final class WebServe {
    let child: ChildProcess
    let oscPort: Int
    let url: String

    /// The namespace it runs in, if not the machine's own.
    let namespace: NetworkNamespace?

    /// Starts the service and waits (at most 10 s) for both its OSC port and its web remote.
    /// - Parameters:
    ///   - arguments: more arguments for `serve`.
    ///   - http: the `--http` address.
    ///   - namespace: a network namespace to run it in (its OSC on that namespace's loopback), or nil.
    ///   - server: the sound server it plays into.
    init(
        _ arguments: [String] = [], http: String = "127.0.0.1:0", namespace: NetworkNamespace? = nil,
        server: PulseServer
    ) throws {
        let all =
            ["serve", "--osc", "127.0.0.1:0", "--http", http, "--quiet", "--verbose"]
            + server.withTestLatency(arguments)
        self.namespace = namespace
        child =
            try namespace?.start(CommandRunner.executable, all, environment: server.clientEnvironment)
            ?? CommandRunner.start(all, environment: server.clientEnvironment)
        let oscPrefix = "metronome: listening for OSC on udp 127.0.0.1:"
        let webPrefix = "metronome: web remote on "
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let lines = child.errorOutput.split(separator: "\n")
            if let osc = lines.first(where: { $0.hasPrefix(oscPrefix) }).flatMap({ Int($0.dropFirst(oscPrefix.count)) }
            ),
                let web = lines.first(where: { $0.hasPrefix(webPrefix) })
            {
                oscPort = osc
                url = String(web.dropFirst(webPrefix.count))
                return
            }
            if child.hasExited { throw Failure.exited(child.wait()) }
            usleep(5_000)
        }
        throw Failure.notListening(child.errorOutput)
    }

    /// Asks it to quit over OSC and waits for its exit.
    func quit() throws -> CommandResult {
        let arguments = ["127.0.0.1", String(oscPort), "/metronome/quit"]
        _ = try (namespace?.start("/usr/bin/oscsend", arguments) ?? ChildProcess("/usr/bin/oscsend", arguments)).wait()
        return child.wait()
    }

    enum Failure: Error {
        case exited(CommandResult)
        case notListening(String)
    }
}

/// The page driven in headless Chromium by `Peers/web_page.py` (selenium, with Debian's chromium and chromedriver).
enum WebPageDriver {
    static let peers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Peers").path

    /// Whether to run: when chromium, chromedriver, selenium and python-osc are there, and always under .ci/test,
    /// which installs them and sets `METRONOME_REQUIRE_PYTHON_OSC` (a missing one then fails the test).
    static let available: Bool = {
        if ProcessInfo.processInfo.environment["METRONOME_REQUIRE_PYTHON_OSC"] != nil { return true }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"),
            FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver"),
            let child = try? ChildProcess("/usr/bin/env", ["python3", "-c", "import selenium, pythonosc"])
        else { return false }
        return child.wait().status == 0
    }()

    static let missing: Comment =
        "chromium, chromium-driver, selenium or python-osc is missing: run .ci/install-packages"

    /// Where screenshots are kept: `METRONOME_ARTIFACTS` when set, else a folder in the temporary directory.
    static let artifacts: String = {
        let path =
            ProcessInfo.processInfo.environment["METRONOME_ARTIFACTS"]
            ?? (NSTemporaryDirectory() + "metronome-web-artifacts")
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    /// Runs a scenario of the script against `url` and the OSC port (in `namespace`, when the service runs in one),
    /// and decodes its report.
    static func run<Report: Decodable>(
        _ scenario: String, url: String, oscPort: Int, namespace: NetworkNamespace? = nil, as type: Report.Type
    ) throws -> Report {
        var environment = ProcessInfo.processInfo.environment
        environment["SE_OFFLINE"] = "true"
        environment["SE_AVOID_STATS"] = "true"
        let arguments = ["python3", "\(peers)/web_page.py", scenario, url, String(oscPort), artifacts]
        let child =
            try namespace?.start("/usr/bin/env", arguments, environment: environment)
            ?? ChildProcess("/usr/bin/env", arguments, environment: environment)
        let result = child.wait()
        guard result.status == 0 else { throw Failure.script(result.standardError) }
        return try JSONDecoder().decode(Report.self, from: Data(result.standardOutput.utf8))
    }

    enum Failure: Error { case script(String) }
}

import Foundation
import MetronomeTestSupport
import Testing

/// `serve --http` on an address other than loopback draws its URL as a QR code after the URL line when standard error
/// is a terminal (and `--quiet` is not given); anywhere else its lines are what they were. The service binds its
/// ports, prints, and stops at the sound server it cannot reach (69), so no sound server is needed. A network address
/// is bound only inside a network namespace with a veth pair (`NetworkNamespace.pair()`), never the machine's own.
@Suite("serve --http: the URL as a QR code at a terminal, and only there")
struct WebQRCodeTests {
    static let environment = ["PULSE_SERVER": "unix:/nonexistent", "TERM": "xterm"]
    static let serve = ["serve", "--osc", "127.0.0.1:0", "--http", "127.0.0.1:0"]
    /// What starts each line of the QR code: white characters on black (SGR 37 and 40).
    static let colours = "\u{1B}[37;40m"

    /// Runs `metronome ARGUMENTS` at a terminal (`script` gives it one), in `namespace` if one is given, and returns
    /// what the terminal showed, its lines' carriage returns removed.
    static func atTerminal(_ arguments: [String], in namespace: NetworkNamespace? = nil) throws -> (
        status: Int32, shown: String
    ) {
        let command = ([CommandRunner.executable] + arguments).joined(separator: " ")
        let script = ["-qfec", command, "/dev/null"]
        let result = try
            (namespace?.start("/usr/bin/script", script, environment: environment)
            ?? ChildProcess("/usr/bin/script", script, environment: environment)).wait()
        return (result.status, result.standardOutput.replacingOccurrences(of: "\r\n", with: "\n"))
    }

    /// The URL of a `metronome: web remote on URL` line, if `line` is one with a token.
    static func url(_ line: Substring) -> String? {
        let prefix = "metronome: web remote on "
        guard line.wholeMatch(of: /metronome: web remote on http:\/\/[0-9a-f.:\[\]]+:\d+\/\?token=[0-9a-f]{32}/) != nil
        else {
            return nil
        }
        return String(line.dropFirst(prefix.count))
    }

    @Test("Standard error not a terminal: the same three lines as ever, no QR code, no escape sequence")
    func notATerminal() throws {
        let result = try CommandRunner.run(Self.serve + ["--http-token"], environment: Self.environment)
        #expect(result.status == 69)
        let lines = result.standardError.split(separator: "\n")
        try #require(lines.count == 3, "\(result.standardError)")
        #expect(lines[0].hasPrefix("metronome: listening for OSC on udp 127.0.0.1:"))
        #expect(Self.url(lines[1]) != nil, "\(lines[1])")
        #expect(lines[2].hasPrefix("metronome: error: cannot connect to PulseAudio at unix:/nonexistent"))
        #expect(!result.standardError.contains("\u{1B}"))
    }

    @Test(
        "At a terminal, on a network address: the URL line, then its QR code, which zbarimg reads as the URL",
        .enabled(if: QRScanner.available, QRScanner.missing))
    func atATerminal() throws {
        // Both namespaces live through the run: deleting one takes the veth pair with it.
        let machines = try NetworkNamespace.pair()
        let (status, shown) = try withExtendedLifetime(machines) {
            try Self.atTerminal(["serve", "--osc", "127.0.0.1:0", "--http", "10.254.0.1:0"], in: machines.0)
        }
        #expect(status == 69)
        let lines = shown.split(separator: "\n")
        let index = try #require(lines.firstIndex { Self.url($0) != nil }, "\(shown)")
        let url = try #require(Self.url(lines[index]))
        // The code's lines follow the URL line at once, and the error line follows them.
        let code = lines[(index + 1)...].prefix { $0.hasPrefix(Self.colours) }
        // http://10.254.0.1:PORT/?token=… with an ephemeral (five-digit) port is 63 bytes, one more than version 4
        // holds at level M: version 5, 37 modules and the quiet zone, 45 rows in 23 lines.
        #expect(url.utf8.count == 63)
        #expect(code.count == 23, "\(url.utf8.count) bytes")
        #expect(lines[index + 1 + code.count].hasPrefix("metronome: error: cannot connect to PulseAudio"))
        let scratch = try Scratch()
        try QRScanner.writeImage(
            QRScanner.modules(inTerminalText: code.joined(separator: "\n"), colours: Self.colours),
            to: scratch.file("code.pgm"))
        #expect(try QRScanner.decode([scratch.file("code.pgm")]) == [url])
    }

    @Test(
        "Every interface (--http 0.0.0.0:0): a URL line per address, then the QR code of the first",
        .enabled(if: QRScanner.available, QRScanner.missing))
    func everyInterface() throws {
        // Every interface of a namespace that stands for a machine: its veth end and loopback.
        let machines = try NetworkNamespace.pair()
        let (status, shown) = try withExtendedLifetime(machines) {
            try Self.atTerminal(["serve", "--osc", "127.0.0.1:0", "--http", "0.0.0.0:0"], in: machines.0)
        }
        #expect(status == 69)
        let lines = shown.split(separator: "\n")
        let urls = lines.compactMap { Self.url($0) }
        try #require(urls.count == 2, "\(shown)")
        #expect(urls[0].hasPrefix("http://10.254.0.1:") && urls[1].hasPrefix("http://127.0.0.1:"), "\(urls)")
        let code = lines.drop { !$0.hasPrefix(Self.colours) }.prefix { $0.hasPrefix(Self.colours) }
        let scratch = try Scratch()
        try QRScanner.writeImage(
            QRScanner.modules(inTerminalText: code.joined(separator: "\n"), colours: Self.colours),
            to: scratch.file("code.pgm"))
        #expect(try QRScanner.decode([scratch.file("code.pgm")]) == [urls[0]])
    }

    @Test(
        "At a terminal, no QR code on loopback (with or without --http-token: a phone cannot open it) or with --quiet")
    func noCode() throws {
        for arguments in [Self.serve, Self.serve + ["--http-token"]] {
            let (status, shown) = try Self.atTerminal(arguments)
            #expect(status == 69)
            #expect(!shown.contains(Self.colours), "\(arguments)")
            #expect(shown.contains("metronome: web remote on http://127.0.0.1:"), "\(arguments)")
        }
        let machines = try NetworkNamespace.pair()
        let (status, shown) = try withExtendedLifetime(machines) {
            try Self.atTerminal(
                ["serve", "--osc", "127.0.0.1:0", "--http", "10.254.0.1:0", "--quiet"], in: machines.0)
        }
        #expect(status == 69)
        #expect(!shown.contains(Self.colours))
        #expect(shown.contains("metronome: web remote on http://10.254.0.1:"))
    }
}

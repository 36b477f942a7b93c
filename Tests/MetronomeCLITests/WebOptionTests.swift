import Foundation
import Glibc
import MetronomeTestSupport
import Testing

/// `serve --http` and `--http-token`: each mistake in one line with its exit status, before any sound server is
/// reached (the web remote binds before the stream opens).
@Suite("serve --http: bad addresses, a port in use, --http-token alone")
struct WebOptionTests {
    @Test("A bad [HOST:]PORT is exit 64 in one line; --http-token without --http too")
    func badValues() throws {
        for (arguments, line) in [
            (
                ["--http", "127.0.0.1:99999"],
                "--http 127.0.0.1:99999: the port must be a whole number from 0 to 65535 (0: any free port)"
            ),
            (["--http", "phone.example:80"], "--http phone.example:80: the host must be an IP address or localhost"),
            (
                ["--http", "::1:80"],
                "--http ::1:80: give [HOST:]PORT, for instance 7780 or 127.0.0.1:7780 or [::1]:7780"
            ),
            (["--http-token"], "--http-token needs --http [HOST:]PORT"),
        ] {
            let result = try CommandRunner.run(
                ["serve"] + arguments, environment: ["PULSE_SERVER": "unix:/nonexistent"])
            #expect(result.status == 64, "\(arguments)")
            #expect(result.standardError == "metronome: error: \(line)\n", "\(arguments)")
        }
    }

    @Test("A bare --http takes the default address: the word after it is the pattern when it is no [HOST:]PORT")
    func bareHTTP() throws {
        for arguments in [["--http", "no-such-pattern"], ["no-such-pattern", "--http"]] {
            let result = try CommandRunner.run(
                ["serve"] + arguments, environment: ["PULSE_SERVER": "unix:/nonexistent"])
            #expect(result.status == 66, "\(arguments)")
            #expect(
                result.standardError
                    == "metronome: error: no-such-pattern: no such file, and no shipped pattern has this name (see "
                    + "'metronome patterns')\n", "\(arguments)")
        }
    }

    @Test(
        "--patterns: a folder that cannot be opened is exit 66 in one line; a bare name is looked up in the folder after the shipped patterns"
    )
    func patternFolders() throws {
        let scratch = try Scratch()
        try FileManager.default.copyItem(atPath: patternsFolder + "/waltz.metro", toPath: scratch.file("mine.metro"))
        for (folder, reason) in [
            ("/nonexistent", "No such file or directory"), (scratch.file("mine.metro"), "Not a directory"),
        ] {
            let result = try CommandRunner.run(
                ["serve", "--patterns", folder], environment: ["PULSE_SERVER": "unix:/nonexistent"])
            #expect(result.status == 66, "\(folder)")
            #expect(
                result.standardError == "metronome: error: --patterns \(folder): cannot open the folder (\(reason))\n")
        }
        let unknown = try CommandRunner.run(["serve", "mine"], environment: ["PULSE_SERVER": "unix:/nonexistent"])
        #expect(unknown.status == 66)
        // Found in the folder, it plays: here the sound server is missing (69), so the pattern was read.
        let found = try CommandRunner.run(
            ["serve", "mine", "--patterns", scratch.path], environment: ["PULSE_SERVER": "unix:/nonexistent"])
        #expect(found.status == 69, "\(found.standardError)")
    }

    @Test("A port in use is exit 69, naming the address and the system's reason, before the sound server is asked")
    func portInUse() throws {
        // Hold a TCP port on 127.0.0.1.
        let holder = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(holder) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(holder, $0, length) == 0 && listen(holder, 1) == 0 && getsockname(holder, $0, &length) == 0
            }
        }
        try #require(bound)
        let port = Int(UInt16(bigEndian: address.sin_port))
        let result = try CommandRunner.run(
            ["serve", "--osc", "127.0.0.1:0", "--http", "127.0.0.1:\(port)"],
            environment: ["PULSE_SERVER": "unix:/nonexistent"])
        #expect(result.status == 69)
        #expect(
            result.standardError.hasSuffix(
                "metronome: error: cannot listen on TCP 127.0.0.1:\(port): Address already in use; choose another with "
                    + "--http [HOST:]PORT\n"), "\(result.standardError)")
    }
}

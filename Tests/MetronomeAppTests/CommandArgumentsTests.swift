import MetronomeApp
import Testing

/// The command line's words rewritten before parsing (`CommandArguments`), without the binary: MetronomeCLITests
/// runs the same shorthands through it.
@Suite("MetronomeApp: the command line's shorthands rewritten before parsing")
struct CommandArgumentsTests {
    /// The error `body` throws, as exit status and message, or nil.
    static func refusal(_ body: () throws(CommandLineError) -> Void) -> (MetronomeApp.ExitStatus, String)? {
        do {
            try body()
            return nil
        } catch {
            return (error.status, error.message)
        }
    }

    @Test("A first word that starts like a number is --bpm; a subcommand's name or an option is left alone")
    func bareTempo() throws {
        #expect(try CommandArguments.bareTempo(["120", "--bars", "4"]) == ["--bpm", "120", "--bars", "4"])
        #expect(try CommandArguments.bareTempo([".5e3"]) == ["--bpm", ".5e3"])
        #expect(try CommandArguments.bareTempo(["4.=60"]) == ["--bpm", "4.=60"])
        #expect(try CommandArguments.bareTempo(["play", "120"]) == ["play", "120"])
        #expect(try CommandArguments.bareTempo(["--bpm", "90"]) == ["--bpm", "90"])
        #expect(try CommandArguments.bareTempo([]) == [])
        #expect(try CommandArguments.bareTempo([""]) == [""])
    }

    @Test("A bare tempo with --bpm as well is exit 64, naming both")
    func bareTempoTwice() {
        let expected = "--bpm given twice: as the first argument (120) and as --bpm"
        let separate = Self.refusal { () throws(CommandLineError) in
            _ = try CommandArguments.bareTempo(["120", "--bpm", "90"])
        }
        #expect(separate?.0 == .usage)
        #expect(separate?.1 == expected)
        let joined = Self.refusal { () throws(CommandLineError) in
            _ = try CommandArguments.bareTempo(["120", "--bpm=90"])
        }
        #expect(joined?.1 == expected)
    }

    @Test("help NAME for no command is exit 64 listing the commands; help alone, help --flag and commands pass")
    func helpTopic() {
        let commands = ["play", "check", "serve"]
        let unknown = Self.refusal { () throws(CommandLineError) in
            try CommandArguments.checkHelpTopic(["help", "plya"], commands: commands)
        }
        #expect(unknown?.0 == .usage)
        #expect(unknown?.1 == "help plya: no such command; the commands are play, check, serve")
        for arguments in [["help"], ["help", "play"], ["help", "--version"], ["play", "plya"], []] {
            #expect(
                Self.refusal { () throws(CommandLineError) in
                    try CommandArguments.checkHelpTopic(arguments, commands: commands)
                } == nil, "\(arguments)")
        }
    }

    @Test("An option with no address after it gets the standard one; a word read as [HOST:]PORT is its own")
    func bareAddress() {
        func rewritten(_ arguments: [String]) -> [String] {
            CommandArguments.bareAddress(arguments, command: "serve", option: "--http", standard: "127.0.0.1:7780")
        }
        #expect(rewritten(["serve", "--http"]) == ["serve", "--http", "127.0.0.1:7780"])
        #expect(rewritten(["serve", "--http", "song"]) == ["serve", "--http", "127.0.0.1:7780", "song"])
        #expect(rewritten(["serve", "--http", "--wait"]) == ["serve", "--http", "127.0.0.1:7780", "--wait"])
        #expect(rewritten(["serve", "--http", "8080"]) == ["serve", "--http", "8080"])
        #expect(rewritten(["serve", "--http", "0.0.0.0:8080"]) == ["serve", "--http", "0.0.0.0:8080"])
        #expect(rewritten(["serve", "--http", "[::1]:8080"]) == ["serve", "--http", "[::1]:8080"])
        // A colon with nothing after it, or digits that are not ASCII, are not a port.
        #expect(rewritten(["serve", "--http", "host:"]) == ["serve", "--http", "127.0.0.1:7780", "host:"])
        #expect(rewritten(["serve", "--http", "٣٣"]) == ["serve", "--http", "127.0.0.1:7780", "٣٣"])
        // Only the command that takes the option is rewritten.
        #expect(rewritten(["play", "--http"]) == ["play", "--http"])
    }
}

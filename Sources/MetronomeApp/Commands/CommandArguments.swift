/// The command line's words rewritten before the argument parser reads them: the shorthands `metronome` accepts that
/// a parser of `--option VALUE` pairs cannot (a tempo as the first word, an option whose address may be left out), and
/// the check of `metronome help NAME`. Pure functions of the words, so each rule is tested without the binary.
public enum CommandArguments {
    /// `metronome 120 …`, klick's way: a first argument that starts like a number (a digit or a point) is the tempo,
    /// as `--bpm` (a subcommand's name never starts so).
    /// - Parameter arguments: the words after the executable's name.
    /// - Returns: the words with `--bpm FIRST` in place of the first one; unchanged when it does not start like a
    ///   number.
    /// - Throws: `CommandLineError` (64) when `--bpm` is given as well: `--bpm given twice: …`.
    public static func bareTempo(_ arguments: [String]) throws(CommandLineError) -> [String] {
        guard let first = arguments.first, let character = first.first, character.isNumber || character == "."
        else { return arguments }
        if arguments.contains(where: { $0 == "--bpm" || $0.hasPrefix("--bpm=") }) {
            throw CommandLineError.usage(option: "--bpm", "given twice: as the first argument (\(first)) and as --bpm")
        }
        return ["--bpm", first] + arguments.dropFirst()
    }

    /// `metronome help NAME` for a NAME that is no command is an error, not the main help with status 0. Any other
    /// words (`help` alone, `help --flag`, no `help`) pass.
    /// - Parameters:
    ///   - arguments: the words after the executable's name.
    ///   - commands: the subcommands' names, in the order the message lists them.
    /// - Throws: `CommandLineError` (64): `help NAME: no such command; the commands are …`.
    public static func checkHelpTopic(_ arguments: [String], commands: [String]) throws(CommandLineError) {
        guard arguments.first == "help", arguments.count > 1, !arguments[1].hasPrefix("-") else { return }
        guard !commands.contains(arguments[1]) else { return }
        throw CommandLineError(
            .usage, "help \(arguments[1]): no such command; the commands are \(commands.joined(separator: ", "))")
    }

    /// `COMMAND … OPTION` with no address after it: `OPTION STANDARD` (`serve --http` is `--http 127.0.0.1:7780`).
    /// The word after `option` is its value only when it reads as `[HOST:]PORT` (ASCII digits after the last colon,
    /// or digits alone), so `serve --http song` serves the pattern `song` with the option at `standard`.
    /// - Parameters:
    ///   - arguments: the words after the executable's name.
    ///   - command: the subcommand that takes `option`: the words are rewritten only when they start with it.
    ///   - option: the option whose address may be left out (`--http`).
    ///   - standard: the address it takes then, as text.
    /// - Returns: the words with `standard` after each `option` that has no address after it.
    public static func bareAddress(_ arguments: [String], command: String, option: String, standard: String)
        -> [String]
    {
        guard arguments.first == command else { return arguments }
        var result: [String] = []
        for (index, argument) in arguments.enumerated() {
            result.append(argument)
            guard argument == option else { continue }
            let next = index + 1 < arguments.count ? arguments[index + 1] : ""
            let port = next.split(separator: ":", omittingEmptySubsequences: false).last ?? ""
            if port.isEmpty || !port.allSatisfy(\.isASCII) || !port.allSatisfy(\.isNumber) {
                result.append(standard)
            }
        }
        return result
    }
}

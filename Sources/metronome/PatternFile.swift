import Glibc
import MetronomeFiles
import MetronomeKit

/// A pattern or tempo-map file named on the command line, or a shipped pattern named without a path.
struct PatternFile {
    /// The path as given, or the shipped pattern it resolved to.
    let path: String

    /// Resolves `FILE-or-NAME`: an existing path is used as it is; a bare name (no `/`) that is not a file is looked
    /// up among the shipped patterns (`NAME.metro`).
    init(resolving name: String) {
        if access(name, F_OK) != 0, !name.contains("/"), let folder = PatternFile.shippedFolder() {
            for candidate in [folder + "/" + name + ".metro", folder + "/" + name] where access(candidate, F_OK) == 0 {
                path = candidate
                return
            }
        }
        path = name
    }

    init(path: String) { self.path = path }

    /// The folder of shipped patterns: `$METRONOME_PATTERNS`, else a `Patterns` folder (or `share/metronome/patterns`)
    /// beside the executable or in any folder above it, else `./Patterns`.
    static func shippedFolder() -> String? {
        if let variable = getenv("METRONOME_PATTERNS") { return String(cString: variable) }
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if count > 0 {
            var folder = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            while let slash = folder.lastIndex(of: "/"), slash != folder.startIndex {
                folder = String(folder[..<slash])
                for candidate in [folder + "/Patterns", folder + "/share/metronome/patterns"]
                where access(candidate + "/basic.metro", F_OK) == 0 {
                    return candidate
                }
            }
        }
        return access("Patterns", F_OK) == 0 ? "Patterns" : nil
    }

    /// The file's text. Missing or unreadable is exit 66; not text, or too large, is exit 65.
    func text() throws(CommandLineError) -> String {
        do {
            return try TextFile.read(path: path)
        } catch {
            var message = error.description
            if case .notFound = error, !path.contains("/") {
                message += ", and no shipped pattern has this name (see 'metronome patterns')"
            }
            throw CommandLineError(error.isMissing ? .noInput : .dataError, message)
        }
    }

    /// The parsed and expanded file. Malformed is exit 65 with `FILE:LINE:COLUMN: error: …`, the line and a caret;
    /// a tempo override that cannot apply is exit 64.
    func score(tempo: TempoOverride = .none) throws(CommandLineError) -> PatternScore {
        let text = try text()
        do {
            return try PatternLanguage.detect(path: path, text: text).score(text, file: path, tempo: tempo)
        } catch {
            switch error {
            case .malformed(let problem): throw CommandLineError(.dataError, problem.description, prefixed: false)
            case .override(let problem):
                // The library names the override in words; the user wrote an option.
                let option: String
                switch tempo {
                case .none: option = problem.value
                case .bpm(let bpm): option = "--bpm \(bpm)"
                case .scale(let factor): option = "--tempo-scale \(factor)"
                }
                throw CommandLineError(.usage, "\(option): \(problem.reason)")
            }
        }
    }
}

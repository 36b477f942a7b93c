import Glibc
import MetronomeKit

/// A tempo-map file named on the command line: read whole, then parsed (klick's format for now).
struct PatternFile {
    let path: String

    /// The file's text. Missing or unreadable is exit 66.
    func text() throws(CommandLineError) -> String {
        guard let file = fopen(path, "r") else {
            let reason = errno == ENOENT ? "no such file" : "cannot open: " + String(cString: strerror(errno))
            throw CommandLineError(.noInput, "\(path): \(reason)")
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        if ferror(file) != 0 {
            throw CommandLineError(.noInput, "\(path): cannot read: \(String(cString: strerror(errno)))")
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The parsed map. A malformed file is exit 65 with `FILE:LINE:COLUMN: error: …`, the line and a caret.
    func load(sampleRate: SampleRate) throws(CommandLineError) -> TempoMap {
        let text = try text()
        do {
            return try KlickMap.parse(text, file: path, sampleRate: sampleRate)
        } catch {
            throw CommandLineError(.dataError, error.description, prefixed: false)
        }
    }
}

import Foundation
import Testing

/// A QR code reader no one here wrote: `zbarimg` (Debian's zbar-tools) run on images of modules, and the half-block
/// text a terminal shows read back into modules, so that what is printed is what is decoded.
public enum QRScanner {
    /// Where Debian puts zbarimg.
    public static let zbarimg = "/usr/bin/zbarimg"

    /// Whether to run: when zbarimg is installed, and always under .ci/test, which installs it and sets
    /// `METRONOME_REQUIRE_PYTHON_OSC` (a missing zbarimg then fails the test instead of skipping it).
    public static let available: Bool =
        ProcessInfo.processInfo.environment["METRONOME_REQUIRE_PYTHON_OSC"] != nil
        || FileManager.default.isExecutableFile(atPath: zbarimg)

    /// Why a test did not run.
    public static let missing: Comment = "zbarimg is missing: run .ci/install-packages (Debian's zbar-tools)"

    /// Decodes images with one zbarimg run (QR codes only) and returns what it read, a line per symbol found, in
    /// the images' order. An image it finds nothing in adds no line.
    public static func decode(_ paths: [String]) throws -> [String] {
        let child = try ChildProcess(zbarimg, ["--quiet", "--raw", "-Sdisable", "-Sqrcode.enable"] + paths)
        let result = child.wait()
        // 0: every image had a symbol; 4: some had none (their lines are missing, which the caller sees).
        guard result.status == 0 || result.status == 4 else { throw Failure.zbarimg(result.standardError) }
        return result.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(
            String.init)
    }

    /// Writes modules (rows of dark = true) as a binary PGM image, `scale` pixels a module, black on white, with
    /// `margin` light modules around them (none when the modules already carry their quiet zone).
    public static func writeImage(_ rows: [[Bool]], scale: Int = 4, margin: Int = 0, to path: String) throws {
        let height = (rows.count + 2 * margin) * scale
        let width = ((rows.first?.count ?? 0) + 2 * margin) * scale
        var bytes = Array("P5\n\(width) \(height)\n255\n".utf8)
        bytes.reserveCapacity(bytes.count + width * height)
        for y in 0..<height {
            let row = y / scale - margin
            for x in 0..<width {
                let column = x / scale - margin
                let dark = rows.indices.contains(row) && rows[row].indices.contains(column) && rows[row][column]
                bytes.append(dark ? 0 : 255)
            }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// The modules (dark = true) drawn by the lines of `text` that start with `colours` (the SGR sequence the QR
    /// code's lines start with: light characters on a dark background), two rows a line: `█` both light, `▀` the
    /// upper, `▄` the lower, a space neither. Escape sequences and carriage returns (a terminal's line ends) are left
    /// out; any other character is an error.
    public static func modules(inTerminalText text: String, colours: String) throws -> [[Bool]] {
        var rows: [[Bool]] = []
        for line in text.split(separator: "\n") where line.hasPrefix(colours) {
            var upper: [Bool] = []
            var lower: [Bool] = []
            var characters = Substring(line)
            while let character = characters.first {
                characters = characters.dropFirst()
                switch character {
                case "\u{1B}":
                    // CSI: ESC [ parameters, up to a final byte from @ to ~.
                    guard characters.first == "[" else { throw Failure.character(character, line: String(line)) }
                    characters = characters.dropFirst().drop { !("@"..."~").contains($0) }.dropFirst()
                case "\r": continue
                case "█", "▀", "▄", " ":
                    upper.append(character == " " || character == "▄")
                    lower.append(character == " " || character == "▀")
                default: throw Failure.character(character, line: String(line))
                }
            }
            rows += [upper, lower]
        }
        return rows
    }

    public enum Failure: Error {
        case zbarimg(String)
        case character(Character, line: String)
    }
}

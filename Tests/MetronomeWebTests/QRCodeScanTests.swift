import MetronomeTestSupport
import Testing

@testable import MetronomeWeb

/// The QR codes read back by a reader no one here wrote, zbarimg (Debian's zbar-tools): each symbol drawn as a
/// PGM image at 4 pixels a module with its 4-module quiet zone, or as the terminal's half-block text read back into
/// modules first.
@Suite("QR code: zbarimg reads what the encoder and the terminal text draw")
struct QRCodeScanTests {
    /// Printable ASCII but the space (which a reader may trim), seeded: the same texts every run.
    static func text(length: Int, seed: UInt64) -> String {
        var random = SplitMix(seed: seed)
        return String((0..<length).map { _ in Character(Unicode.Scalar(UInt8(0x21 + random.next() % 94))) })
    }

    /// Draws each symbol as an image and returns what zbarimg reads from them, in order.
    static func scan(_ codes: [QRCode]) throws -> [String] {
        let scratch = try Scratch()
        let paths = try codes.enumerated().map { index, code in
            let path = scratch.file("\(index).pgm")
            try QRScanner.writeImage(code.rows, margin: QRCode.quietZone, to: path)
            return path
        }
        return try QRScanner.decode(paths)
    }

    /// Draws each terminal text's modules, read back from the text, and returns what zbarimg reads, in order.
    static func scan(terminalTexts texts: [String]) throws -> [String] {
        let scratch = try Scratch()
        let paths = try texts.enumerated().map { index, text in
            let path = scratch.file("\(index).pgm")
            try QRScanner.writeImage(
                QRScanner.modules(inTerminalText: text, colours: QRCode.terminalColours), to: path)
            return path
        }
        return try QRScanner.decode(paths)
    }

    @Test(
        "Every length from 1 to 213 bytes at level M, versions 1 to 10, reads back as its text",
        .enabled(if: QRScanner.available, QRScanner.missing))
    func everyLength() throws {
        let texts = (1...QRCode.capacity(version: 10, .medium)).map { Self.text(length: $0, seed: UInt64($0)) }
        let codes = try texts.map { try QRCode(encoding: Array($0.utf8)) }
        #expect(Set(codes.map(\.version)) == Set(QRCode.versions))
        let read = try Self.scan(codes)
        #expect(read.count == texts.count)
        for (index, text) in texts.enumerated() where index >= read.count || read[index] != text {
            Issue.record(
                "\(text.count) bytes (version \(codes[index].version)) read as \(read.dropFirst(index).first ?? "nothing")"
            )
            break
        }
    }

    @Test(
        "At each level, every version's capacity and one byte more (the next version) read back",
        .enabled(if: QRScanner.available, QRScanner.missing))
    func versionBoundaries() throws {
        var texts: [String] = []
        var codes: [QRCode] = []
        for correction in QRCode.Correction.allCases {
            for version in QRCode.versions {
                let capacity = QRCode.capacity(version: version, correction)
                for length in version < 10 ? [capacity, capacity + 1] : [capacity] {
                    let text = Self.text(length: length, seed: UInt64(1000 * version + length))
                    let code = try QRCode(encoding: Array(text.utf8), correction: correction)
                    #expect(code.version == (length == capacity ? version : version + 1))
                    texts.append(text)
                    codes.append(code)
                }
            }
        }
        #expect(try Self.scan(codes) == texts)
    }

    @Test(
        "The web remote's URLs, drawn as terminal text and read back into modules, scan as the URL",
        .enabled(if: QRScanner.available, QRScanner.missing))
    func terminalTextScans() throws {
        var random = SplitMix(seed: 23)
        let tokens = (0..<8).map { _ in
            (0..<2).map { _ in
                let digits = String(random.next(), radix: 16)
                return String(repeating: "0", count: 16 - digits.count) + digits
            }.joined()
        }
        let hosts = [
            "192.168.1.20:7780", "10.0.0.5:80", "127.0.0.1:7780", "[::1]:7780", "172.16.254.254:65535",
            "[fd12:3456:789a:1:abcd:ef01:2345:6789]:7780", "[2001:db8::8a2e:370:7334]:49152",
            "[ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff]:65535",
        ]
        let urls = zip(hosts, tokens).map { "http://\($0)/?token=\($1)" }
        let texts = try urls.map { try QRCode(encoding: Array($0.utf8)).terminalText }
        #expect(try Self.scan(terminalTexts: texts) == urls)
        // The URL of a LAN address (64 bytes) is version 5 at level M: 45 columns and 23 lines with the quiet zone.
        let lines = texts[0].split(separator: "\n")
        #expect(lines.count == 23)
        #expect(lines.allSatisfy { $0.hasPrefix(QRCode.terminalColours) && $0.hasSuffix(QRCode.terminalReset) })
        #expect(lines.allSatisfy { $0.count == 45 + QRCode.terminalColours.count + QRCode.terminalReset.count })
    }

    @Test(
        "Terminal text of every version and level: read back, it is the symbol inside a quiet zone of 4 (and a half row)",
        .enabled(if: QRScanner.available, QRScanner.missing))
    func terminalTextModules() throws {
        var texts: [String] = []
        var expected: [String] = []
        for correction in QRCode.Correction.allCases {
            for version in QRCode.versions {
                let text = Self.text(length: QRCode.capacity(version: version, correction), seed: UInt64(version))
                let code = try QRCode(encoding: Array(text.utf8), correction: correction)
                let rows = try QRScanner.modules(inTerminalText: code.terminalText, colours: QRCode.terminalColours)
                let side = code.size + 8
                #expect(rows.count == side + 1 && rows.allSatisfy { $0.count == side })
                for (index, row) in rows.enumerated() {
                    let inside = (4..<(4 + code.size)).contains(index)
                    #expect(
                        row
                            == (0..<side).map {
                                inside && (4..<(4 + code.size)).contains($0) && code[index - 4, $0 - 4]
                            })
                }
                texts.append(code.terminalText)
                expected.append(text)
            }
        }
        #expect(try Self.scan(terminalTexts: texts) == expected)
    }

    @Test(
        "Either copy of the format information, and either version block, is read: zbarimg reads with the other garbled",
        .enabled(if: QRScanner.available, QRScanner.missing))
    func eitherCopyIsRead() throws {
        var texts: [String] = []
        var images: [[[Bool]]] = []
        for version in [1, 4, 7, 10] {
            let text = Self.text(length: QRCode.capacity(version: version, .medium), seed: UInt64(version + 50))
            let code = try QRCode(encoding: Array(text.utf8))
            let size = code.size
            // Format bits 0–6 (seven errors, past what BCH(15,5) corrects): up column 8 from row 0 (row 6 is the
            // timing pattern's) in the first copy; leftwards along row 8 from the right edge in the second.
            let firstFormat = [(0, 8), (1, 8), (2, 8), (3, 8), (4, 8), (5, 8), (7, 8)]
            let secondFormat = (0...6).map { (8, size - 1 - $0) }
            var garbles = [firstFormat, secondFormat]
            if version >= 7 {
                // The version blocks: 6 × 3 at the top right, 3 × 6 at the bottom left.
                let block = (0..<18).map { ($0 / 3, size - 11 + $0 % 3) }
                garbles += [block, block.map { ($0.1, $0.0) }]
            }
            for garble in garbles {
                var rows = code.rows
                for (row, column) in garble { rows[row][column].toggle() }
                images.append(rows)
                texts.append(text)
            }
        }
        let scratch = try Scratch()
        let paths = try images.enumerated().map { index, rows in
            let path = scratch.file("\(index).pgm")
            try QRScanner.writeImage(rows, margin: QRCode.quietZone, to: path)
            return path
        }
        #expect(try QRScanner.decode(paths) == texts)
    }
}

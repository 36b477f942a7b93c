import MetronomeTestSupport
import Testing

@testable import MetronomeWeb

/// Our side of the QR code: the versions and capacities asked of libqrencode, the refusal of long input, and the
/// terminal's text. The standard's own rules (Reed–Solomon, masks, format information) are libqrencode's; whether a
/// reader reads the symbols is `QRCodeScanTests`.
@Suite("QR code: versions, capacities and long input")
struct QRCodeTests {
    @Test("Bytes past version 10's capacity are refused in one line, at once, whatever their number")
    func tooLong() {
        #expect(throws: QRCodeError.tooLong(bytes: 214, maximum: 213)) {
            try QRCode(encoding: [UInt8](repeating: 0x61, count: 214))
        }
        #expect(throws: QRCodeError.tooLong(bytes: 272, maximum: 271)) {
            try QRCode(encoding: [UInt8](repeating: 0x61, count: 272), correction: .low)
        }
        #expect(throws: QRCodeError.tooLong(bytes: 10_000_000, maximum: 119)) {
            try QRCode(encoding: [UInt8](repeating: 0, count: 10_000_000), correction: .high)
        }
        #expect(
            QRCodeError.tooLong(bytes: 214, maximum: 213).description
                == "214 bytes is too long for a QR code here (at most 213, version 10)")
    }

    @Test("Versions grow with the bytes: the smallest that holds them, 21 + 4 modules a version; no bytes, no symbol")
    func versionChoice() throws {
        #expect(throws: QRCodeError.empty) { try QRCode(encoding: []) }
        #expect(QRCodeError.empty.description == "there is nothing to draw as a QR code (no bytes)")
        #expect(try QRCode(encoding: [0x30]).version == 1)
        for correction in QRCode.Correction.allCases {
            for version in QRCode.versions {
                let capacity = QRCode.capacity(version: version, correction)
                let full = try QRCode(encoding: [UInt8](repeating: 0x30, count: capacity), correction: correction)
                #expect(
                    full.version == version && full.size == 17 + 4 * version
                        && full.modules.count == full.size * full.size)
                if version < 10 {
                    let more = try QRCode(
                        encoding: [UInt8](repeating: 0x30, count: capacity + 1), correction: correction)
                    #expect(more.version == version + 1, "\(correction) \(capacity + 1) bytes")
                }
            }
        }
    }
}

@Suite("QR code: the terminal's text")
struct QRCodeTerminalTextTests {
    @Test("White characters are light modules on black: the quiet zone is █, a finder's top edge ▄▄▄▄▄ between spaces")
    func glyphs() throws {
        let code = try QRCode(encoding: Array("http://192.168.1.20:7780/".utf8))
        #expect(code.version == 2)
        let lines = code.terminalText.split(separator: "\n", omittingEmptySubsequences: false)
        // 25 + 8 = 33 rows: 17 lines, the last one's lower half light; then the text's final newline.
        #expect(lines.count == 18 && lines.last == "")
        let quiet = QRCode.terminalColours + String(repeating: "█", count: 33) + QRCode.terminalReset
        #expect(lines[0] == quiet && lines[1] == quiet && lines[16] == quiet)
        // Rows 4 and 5: four light modules, then the finder's dark top row over its dark edge, light inside.
        let finder = "████ ▄▄▄▄▄ "
        #expect(lines[2].hasPrefix(QRCode.terminalColours + finder))
        #expect(lines[2].hasSuffix(String(finder.reversed()) + QRCode.terminalReset))
    }
}

extension QRCode {
    /// The modules row by row.
    var rows: [[Bool]] { (0..<size).map { row in (0..<size).map { self[row, $0] } } }
}

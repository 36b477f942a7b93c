import MetronomeTestSupport
import Testing

@testable import MetronomeWeb

/// The QR code encoder against the facts of ISO/IEC 18004: its worked example's error correction codewords, its
/// tables (generator polynomials, format and version information, capacities, codeword counts) and the penalty
/// rules. Whether a reader reads the symbols is `QRCodeScanTests`.
@Suite("QR code: Reed–Solomon, format and version information, capacities, masks and penalties")
struct QRCodeTests {
    @Test("Reed–Solomon: the standard's example 01234567 at 1-M gets its ten error correction codewords")
    func reedSolomonExample() {
        // ISO/IEC 18004, Annex I: the data codewords of "01234567" in numeric mode at version 1-M, pad included.
        let data: [UInt8] = [
            0x10, 0x20, 0x0C, 0x56, 0x61, 0x80, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11,
        ]
        #expect(
            QRReedSolomon(degree: 10).remainder(of: data) == [
                0xA5, 0x24, 0xD4, 0xC1, 0xED, 0x36, 0xC7, 0x87, 0x2C, 0x55,
            ])
    }

    @Test("Reed–Solomon: the generator polynomials of 7 and 10 codewords are the standard's (Annex A, as powers of α)")
    func generatorPolynomials() {
        let logarithms = { (degree: Int) in
            QRReedSolomon(degree: degree).generator.map { QRReedSolomon.logarithms[Int($0)] }
        }
        #expect(logarithms(7) == [0, 87, 229, 146, 149, 238, 102, 21])
        #expect(logarithms(10) == [0, 251, 67, 46, 61, 118, 70, 64, 94, 32, 45])
    }

    @Test("Reed–Solomon: every codeword (data and correction) has the generator's roots α⁰…αⁿ⁻¹, 2 000 random blocks")
    func syndromesVanish() {
        var random = SplitMix(seed: 18004)
        for round in 0..<2000 {
            let degree = [7, 10, 13, 15, 16, 17, 18, 20, 22, 24, 26, 28, 30][round % 13]
            let data = (0..<(1 + Int(random.next() % 120))).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let codeword = data + QRReedSolomon(degree: degree).remainder(of: data)
            for power in 0..<degree {
                // Horner's rule at x = α^power, the first codeword the highest power of x.
                let root = QRReedSolomon.exponents[power]
                let value = codeword.reduce(UInt8(0)) { QRReedSolomon.multiply($0, root) ^ $1 }
                #expect(value == 0, "degree \(degree), data \(data), root α^\(power)")
            }
        }
    }

    @Test("Format information: all 32 pairs of level and mask are the standard's bits (Annex C, Table C.1)")
    func formatInformation() {
        let table: [QRCode.Correction: [String]] = [
            .low: [
                "111011111000100", "111001011110011", "111110110101010", "111100010011101", "110011000101111",
                "110001100011000", "110110001000001", "110100101110110",
            ],
            .medium: [
                "101010000010010", "101000100100101", "101111001111100", "101101101001011", "100010111111001",
                "100000011001110", "100111110010111", "100101010100000",
            ],
            .quartile: [
                "011010101011111", "011000001101000", "011111100110001", "011101000000110", "010010010110100",
                "010000110000011", "010111011011010", "010101111101101",
            ],
            .high: [
                "001011010001001", "001001110111110", "001110011100111", "001100111010000", "000011101100010",
                "000001001010101", "000110100001100", "000100000111011",
            ],
        ]
        for (correction, rows) in table {
            for mask in QRCode.Mask.all {
                let bits = String(QRMatrix.formatBits(correction, mask), radix: 2)
                #expect(
                    String(repeating: "0", count: 15 - bits.count) + bits == rows[mask.reference],
                    "\(correction) mask \(mask)")
            }
        }
    }

    @Test("Version information of versions 7 to 10 is the standard's (Annex D, Table D.1), drawn in both blocks")
    func versionInformation() throws {
        let table = [7: 0x07C94, 8: 0x085BC, 9: 0x09A99, 10: 0x0A4D3]
        for (version, bits) in table {
            #expect(QRMatrix.versionBits(version) == bits, "version \(version)")
            let code = try QRCode(encoding: [UInt8](repeating: 0x41, count: QRCode.capacity(version: version, .medium)))
            #expect(code.version == version)
            // The top right block: six rows of three; bit 0 at row 0, column size − 11. The bottom left one is its
            // transpose.
            for index in 0..<18 {
                let near = index / 3
                let far = code.size - 11 + index % 3
                #expect(code[near, far] == ((bits >> index) & 1 == 1), "version \(version) bit \(index)")
                #expect(code[far, near] == ((bits >> index) & 1 == 1), "version \(version) bit \(index)")
            }
        }
    }

    @Test("Capacities in byte mode at L, M, Q and H for versions 1 to 10 are the standard's (Table 7)")
    func capacities() {
        let table: [[Int]] = [
            [17, 14, 11, 7], [32, 26, 20, 14], [53, 42, 32, 24], [78, 62, 46, 34], [106, 84, 60, 44],
            [134, 106, 74, 58], [154, 122, 86, 64], [192, 152, 108, 84], [230, 180, 130, 98], [271, 213, 151, 119],
        ]
        for version in QRCode.versions {
            #expect(
                QRCode.Correction.allCases.map { QRCode.capacity(version: version, $0) } == table[version - 1],
                "version \(version)")
        }
    }

    @Test("Every version's codewords (Table 1) and remainder bits fill exactly the modules the function patterns leave")
    func codewordsFillTheSymbol() {
        let totals = [26, 44, 70, 100, 134, 172, 196, 242, 292, 346]
        let remainders = [0, 7, 7, 7, 7, 7, 0, 0, 0, 0]
        for version in QRCode.versions {
            let matrix = QRMatrix(version: version)
            let free = (0..<matrix.size).reduce(0) { sum, row in
                sum + (0..<matrix.size).count { !matrix.isFunction(row: row, column: $0) }
            }
            #expect(free == totals[version - 1] * 8 + remainders[version - 1], "version \(version)")
            for correction in QRCode.Correction.allCases {
                #expect(QRCode.blocks(version: version, correction).totalCount == totals[version - 1])
            }
        }
    }

    @Test("Data codewords: mode 0100, the count (16 bits from version 10), the bytes, terminator, 0xEC 0x11 padding")
    func dataCodewords() {
        // "AB" at 1-M: 0100 00000010 01000001 01000010 0000, then pad codewords.
        #expect(
            QRCode.blocks(version: 1, .medium).dataCodewords(byteMode: [0x41, 0x42], version: 1)
                == [0x40, 0x24, 0x14, 0x20, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11])
        // Version 10: a 16-bit count, 0100 0000000000000001 01000001 0000 → 0x40 0x00 0x14 0x10, then padding.
        let ten = QRCode.blocks(version: 10, .medium).dataCodewords(byteMode: [0x41], version: 10)
        #expect(ten.prefix(6) == [0x40, 0x00, 0x14, 0x10, 0xEC, 0x11])
        #expect(ten.count == 216)
        // Full: the byte-mode header is 4 bits past a byte, so the terminator's four zero bits end the last codeword.
        let full = [UInt8](repeating: 0xFF, count: 14)
        #expect(QRCode.blocks(version: 1, .medium).dataCodewords(byteMode: full, version: 1).last == 0xF0)
    }

    @Test("Interleaving: codeword i of every block in turn, the longer blocks' last data codewords after the others")
    func interleaving() {
        // 5-Q: two blocks of 15 data codewords and two of 16, 18 correction codewords each.
        let layout = QRCode.blocks(version: 5, .quartile)
        let data = (0..<62).map { UInt8($0) }
        let result = layout.interleaved(data)
        #expect(result.count == 134)
        #expect(Array(result.prefix(8)) == [0, 15, 30, 46, 1, 16, 31, 47])
        // Index 14 of each block is the last of the short ones; index 15 exists in the long blocks alone.
        #expect(Array(result[56..<62]) == [14, 29, 44, 60, 45, 61])
        let code = QRReedSolomon(degree: 18)
        let blocks = [data[0..<15], data[15..<30], data[30..<46], data[46..<62]].map { code.remainder(of: Array($0)) }
        #expect(Array(result[62..<66]) == blocks.map { $0[0] })
        #expect(Array(result[130..<134]) == blocks.map { $0[17] })
    }

    @Test("Penalty rule 1: a run of five or more of one colour costs 3, and 1 a module past five")
    func runPenalty() {
        let line = { (text: String) in text.map { $0 == "#" } }
        #expect(QRCode.runPenalty(line("####.####.")) == 0)
        #expect(QRCode.runPenalty(line("#####.")) == 3)
        #expect(QRCode.runPenalty(line(".#######")) == 5)
        #expect(QRCode.runPenalty(line("#####.....")) == 6)
        #expect(QRCode.runPenalty(line("...........")) == 9)
    }

    @Test("Penalty rule 2: each 2 × 2 square of one colour costs 3, overlapping ones each")
    func blockPenalty() {
        let rows = { (lines: [String]) in lines.map { $0.map { $0 == "#" } } }
        #expect(QRCode.blockPenalty(rows(["##.", "##.", "..#"])) == 3)
        #expect(QRCode.blockPenalty(rows(["###", "###", "###"])) == 12)
        #expect(QRCode.blockPenalty(rows(["#.#", ".#.", "#.#"])) == 0)
        #expect(QRCode.blockPenalty(rows(["...", "...", "#.#"])) == 6)
    }

    @Test("Penalty rule 3: 1:1:3:1:1 with four light modules before or after it costs 40 each")
    func finderLikePenalty() {
        let line = { (text: String) in text.map { $0 == "#" } }
        #expect(QRCode.finderLikePenalty(line("....#.###.#")) == 40)
        #expect(QRCode.finderLikePenalty(line("#.###.#....")) == 40)
        #expect(QRCode.finderLikePenalty(line("....#.###.#....")) == 80)
        #expect(QRCode.finderLikePenalty(line("...#.###.#...")) == 0)
        #expect(QRCode.finderLikePenalty(line("#.###.#")) == 0)
    }

    @Test("Penalty rule 4: 10 for each full 5 % the dark share is away from half")
    func balancePenalty() {
        let rows = { (dark: Int) in [(0..<100).map { $0 < dark }] }
        #expect(QRCode.balancePenalty(rows(50)) == 0)
        #expect(QRCode.balancePenalty(rows(54)) == 0)
        #expect(QRCode.balancePenalty(rows(55)) == 10)
        #expect(QRCode.balancePenalty(rows(45)) == 10)
        #expect(QRCode.balancePenalty(rows(39)) == 20)
        #expect(QRCode.balancePenalty(rows(100)) == 100)
    }

    @Test("The mask chosen has the lowest penalty of the eight (the lowest-numbered on a tie), 60 random inputs")
    func lowestPenaltyChosen() throws {
        var random = SplitMix(seed: 7)
        for _ in 0..<60 {
            let bytes = (0..<(1 + Int(random.next() % 150))).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let chosen = try QRCode(encoding: bytes)
            let scores = try QRCode.Mask.all.map { QRCode.penalty(try QRCode(encoding: bytes, mask: $0).rows) }
            #expect(chosen.mask.reference == scores.firstIndex(of: scores.min()!), "\(bytes.count) bytes: \(scores)")
        }
    }

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
        #expect(QRCode.Mask(reference: 8) == nil && QRCode.Mask(reference: -1) == nil)
        #expect(QRCode.Mask(reference: 2)?.description == "010")
    }

    @Test("Versions grow with the bytes: the smallest that holds them, 21 + 4 modules a version, empty data too")
    func versionChoice() throws {
        #expect(try QRCode(encoding: []).version == 1)
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

/// The modules of a QR code symbol while it is built: the function patterns (ISO/IEC 18004, 6.3) drawn and marked as
/// such, then the codewords placed in the rest, then a mask and the format information.
///
/// Function patterns: a finder pattern (7 × 7: a dark ring, a light ring, a dark 3 × 3 centre) in three corners,
/// each with a light separator; the timing patterns along row 6 and column 6 (dark on even indices); the alignment
/// patterns (5 × 5: dark ring, light ring, dark centre) at every pair of the version's centre coordinates but those
/// on a finder pattern; the areas of the format information around the finders, and the dark module beside the
/// bottom-left one; from version 7, the two blocks of version information.
///
/// Invariant: `dark` and `function` hold `size × size` values, row by row.
struct QRMatrix: Sendable {
    /// The version, 1 to 10.
    let version: Int
    /// Modules a side.
    let size: Int
    /// Whether each module is dark.
    private(set) var dark: [Bool]
    /// Whether each module belongs to a function pattern (or format or version information), where no data go.
    private(set) var function: [Bool]

    /// A symbol of `version` with its function patterns, its version information (from version 7) and the format
    /// information's modules reserved.
    init(version: Int) {
        self.version = version
        size = 17 + 4 * version
        dark = Array(repeating: false, count: size * size)
        function = dark
        for (row, column) in [(0, 0), (0, size - 7), (size - 7, 0)] { drawFinder(row: row, column: column) }
        for index in 8..<(size - 8) {
            set(row: 6, column: index, dark: index % 2 == 0)
            set(row: index, column: 6, dark: index % 2 == 0)
        }
        // Every pair of centres but the three on the finder patterns (those on the timing patterns agree with them).
        let centres = QRMatrix.alignmentCentres[version - 1]
        for row in centres {
            for column in centres {
                let onFinder =
                    row == centres.first && (column == centres.first || column == centres.last)
                    || row == centres.last && column == centres.first
                if !onFinder { drawAlignment(row: row, column: column) }
            }
        }
        drawFormat(0)
        set(row: size - 8, column: 8, dark: true)
        if version >= 7 { drawVersion(QRMatrix.versionBits(version)) }
    }

    /// Whether the module at `row` and `column` is dark.
    subscript(row: Int, column: Int) -> Bool { dark[row * size + column] }

    /// The modules row by row (dark = true).
    var rows: [[Bool]] { (0..<size).map { Array(dark[($0 * size)..<(($0 + 1) * size)]) } }

    /// Whether the module at `row` and `column` belongs to a function pattern.
    func isFunction(row: Int, column: Int) -> Bool { function[row * size + column] }

    /// Sets a module of a function pattern.
    private mutating func set(row: Int, column: Int, dark isDark: Bool) {
        dark[row * size + column] = isDark
        function[row * size + column] = true
    }

    /// A finder pattern with its top left at `row`, `column`, and its separator where that is inside the symbol:
    /// dark at a ring distance (the larger of the row and column distances from the centre) of 0, 1 or 3.
    private mutating func drawFinder(row: Int, column: Int) {
        for dy in -1...7 {
            for dx in -1...7 where (0..<size).contains(row + dy) && (0..<size).contains(column + dx) {
                let ring = max(abs(dy - 3), abs(dx - 3))
                set(row: row + dy, column: column + dx, dark: ring != 2 && ring != 4)
            }
        }
    }

    /// An alignment pattern centred on `row`, `column`: dark at a ring distance of 0 or 2.
    private mutating func drawAlignment(row: Int, column: Int) {
        for dy in -2...2 {
            for dx in -2...2 { set(row: row + dy, column: column + dx, dark: max(abs(dy), abs(dx)) != 1) }
        }
    }

    /// Draws the 15 format bits (bit 14 the most significant) in both places: bits 0–7 up column 8 beside the top
    /// left finder (skipping the timing row) and 8–14 leftwards along row 8 (skipping the timing column); again,
    /// bits 0–7 leftwards from the right end of row 8 and 8–14 down column 8 to the bottom.
    mutating func drawFormat(_ bits: Int) {
        func bit(_ index: Int) -> Bool { (bits >> index) & 1 == 1 }
        for index in 0...5 { set(row: index, column: 8, dark: bit(index)) }
        set(row: 7, column: 8, dark: bit(6))
        set(row: 8, column: 8, dark: bit(7))
        set(row: 8, column: 7, dark: bit(8))
        for index in 9...14 { set(row: 8, column: 14 - index, dark: bit(index)) }
        for index in 0...7 { set(row: 8, column: size - 1 - index, dark: bit(index)) }
        for index in 8...14 { set(row: size - 15 + index, column: 8, dark: bit(index)) }
    }

    /// Draws the 18 version bits in both blocks: bit i at row i / 3 and column size − 11 + i mod 3 (top right), and
    /// at the transposed place (bottom left).
    private mutating func drawVersion(_ bits: Int) {
        for index in 0..<18 {
            let isDark = (bits >> index) & 1 == 1
            let near = index / 3
            let far = size - 11 + index % 3
            set(row: near, column: far, dark: isDark)
            set(row: far, column: near, dark: isDark)
        }
    }

    /// Places the codewords, most significant bit first, in the modules that are not function ones: in columns
    /// two at a time from the right edge (the timing column skipped), right module then left, upwards in the first
    /// pair, downwards in the next, and so on. Modules left over (the remainder bits) stay light.
    mutating func place(_ codewords: [UInt8]) {
        var bit = 0
        let bitCount = codewords.count * 8
        var right = size - 1
        var upwards = true
        while right > 0 {
            if right == 6 { right = 5 }
            for step in 0..<size {
                let row = upwards ? size - 1 - step : step
                for column in [right, right - 1] where !function[row * size + column] && bit < bitCount {
                    dark[row * size + column] = (codewords[bit / 8] >> (7 - UInt8(bit % 8))) & 1 == 1
                    bit += 1
                }
            }
            upwards.toggle()
            right -= 2
        }
    }

    /// This symbol with `mask` applied to every module that is not a function one, and the format information of
    /// `correction` and `mask` drawn.
    func masked(_ mask: QRCode.Mask, _ correction: QRCode.Correction) -> QRMatrix {
        var result = self
        for row in 0..<size {
            for column in 0..<size where !function[row * size + column] && mask.inverts(row: row, column: column) {
                result.dark[row * size + column].toggle()
            }
        }
        result.drawFormat(QRMatrix.formatBits(correction, mask))
        return result
    }

    /// The 15 format bits: the level's two bits and the mask's three, their BCH(15,5) check bits (the remainder of
    /// the five times x¹⁰ divided by x¹⁰ + x⁸ + x⁵ + x⁴ + x² + x + 1, 0x537) after them, all XOR 0x5412 so that no
    /// format information is all light.
    static func formatBits(_ correction: QRCode.Correction, _ mask: QRCode.Mask) -> Int {
        let data = correction.formatBits << 3 | mask.reference
        return (data << 10 | remainder(data << 10, generator: 0x537)) ^ 0x5412
    }

    /// The 18 version bits: the version's six, their BCH(18,6) check bits (the remainder of the six times x¹²
    /// divided by x¹² + x¹¹ + x¹⁰ + x⁹ + x⁸ + x⁵ + x² + 1, 0x1F25) after them.
    static func versionBits(_ version: Int) -> Int {
        version << 12 | remainder(version << 12, generator: 0x1F25)
    }

    /// The remainder of a polynomial over GF(2) (bit i the coefficient of xⁱ) divided by `generator`.
    static func remainder(_ value: Int, generator: Int) -> Int {
        let degree = Int.bitWidth - 1 - generator.leadingZeroBitCount
        var value = value
        while value != 0, Int.bitWidth - 1 - value.leadingZeroBitCount >= degree {
            value ^= generator << (Int.bitWidth - 1 - value.leadingZeroBitCount - degree)
        }
        return value
    }

    /// The row and column coordinates of the alignment patterns' centres for versions 1 to 10 (ISO/IEC 18004,
    /// Annex E): none in version 1.
    static let alignmentCentres: [[Int]] = [
        [], [6, 18], [6, 22], [6, 26], [6, 30], [6, 34], [6, 22, 38], [6, 24, 42], [6, 26, 46], [6, 28, 50],
    ]
}

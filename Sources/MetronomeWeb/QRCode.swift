/// A QR code symbol (ISO/IEC 18004) holding bytes in byte mode: written from the standard by this project, for the
/// web remote's URL (`metronome serve` prints it at the terminal for a phone's camera).
///
/// Versions 1 to 10 (21 to 57 modules a side) are made, the smallest that holds the bytes at the level of error
/// correction asked; level M holds 14 to 213 bytes over that range. A URL of the web remote with its token is 54 to
/// 100 bytes: version 4 to 6 at level M. M is the default, not L, because a phone reads the code off a screen, through
/// a terminal's gaps between lines, glare and moiré: M restores twice what L does (15 % against 7 %) for two more
/// lines at the terminal (a LAN address's URL, 64 bytes, is version 5 at M, 23 lines, and version 4 at L, 21). The
/// data are one byte-mode segment (mode 0100, an 8-bit count up to version 9 and a 16-bit one from 10), the
/// terminator, padding to a byte and the pad codewords 0xEC and 0x11; it is split into the blocks of the version's
/// table, each given its Reed–Solomon codewords (`QRReedSolomon`), interleaved, and placed in the two-module-wide
/// zig-zag around the function patterns (`QRMatrix`). Of the eight masks, the one with the lowest penalty
/// (`QRCode.penalty(_:)`, the four rules) is kept unless one is asked for.
///
/// Invariant: `size == 17 + 4 × version`, and `modules` holds `size × size` values, row by row.
public struct QRCode: Sendable, Hashable {
    /// The level of error correction: the share of the codewords that can be restored (ISO/IEC 18004, 5.3.5).
    public enum Correction: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// L: about 7 %.
        case low
        /// M: about 15 %.
        case medium
        /// Q: about 25 %.
        case quartile
        /// H: about 30 %.
        case high

        /// The level's two bits in the format information: L 01, M 00, Q 11, H 10.
        var formatBits: Int {
            switch self {
            case .low: 0b01
            case .medium: 0b00
            case .quartile: 0b11
            case .high: 0b10
            }
        }

        /// The level's letter: L, M, Q or H.
        public var description: String {
            switch self {
            case .low: "L"
            case .medium: "M"
            case .quartile: "Q"
            case .high: "H"
            }
        }
    }

    /// The versions made: 1 to 10.
    public static let versions = 1...10

    /// The symbol's version, 1 to 10.
    public let version: Int
    /// The level of error correction.
    public let correction: Correction
    /// The mask applied to the data.
    public let mask: Mask
    /// Whether each module is dark, row by row from the top left.
    public let modules: [Bool]

    /// Modules a side: 17 + 4 × version.
    public var size: Int { 17 + 4 * version }

    /// Whether the module at `row` and `column` (from the top left, 0 to `size` − 1) is dark.
    public subscript(row: Int, column: Int) -> Bool { modules[row * size + column] }

    /// Encodes `bytes` in the smallest version that holds them.
    ///
    /// - Parameters:
    ///   - bytes: the data, any bytes (a URL as UTF-8).
    ///   - correction: the level of error correction.
    ///   - mask: the mask to apply, or nil for the one of lowest penalty (the lowest-numbered on a tie).
    /// - Throws: `QRCodeError.tooLong` when version 10 at this level cannot hold them.
    /// - Complexity: O(n + b) for n modules and b bytes, the modules eight times over (each mask is drawn and scored
    ///   unless one is given).
    public init(encoding bytes: some Collection<UInt8>, correction: Correction = .medium, mask: Mask? = nil)
        throws(QRCodeError)
    {
        let data = Array(bytes)
        guard let version = QRCode.versions.first(where: { data.count <= QRCode.capacity(version: $0, correction) })
        else {
            throw .tooLong(bytes: data.count, maximum: QRCode.capacity(version: QRCode.versions.upperBound, correction))
        }
        let layout = QRCode.blocks(version: version, correction)
        let codewords = layout.interleaved(layout.dataCodewords(byteMode: data, version: version))
        var matrix = QRMatrix(version: version)
        matrix.place(codewords)
        // The first of the lowest scores: `min(by:)` keeps the earlier of equal elements.
        let chosen =
            mask ?? Mask.all.map { ($0, QRCode.penalty(matrix.masked($0, correction).rows)) }.min { $0.1 < $1.1 }!.0
        self.version = version
        self.correction = correction
        self.mask = chosen
        self.modules = matrix.masked(chosen, correction).dark
    }

    /// The most bytes a version holds at a level in byte mode: its data codewords' bits less the mode indicator
    /// (4 bits) and the count (8 bits up to version 9, 16 from 10), in whole bytes.
    /// - Precondition: `version` is one of `QRCode.versions`.
    public static func capacity(version: Int, _ correction: Correction) -> Int {
        precondition(versions.contains(version), "QR code version \(version) is not made (1 to 10)")
        return (blocks(version: version, correction).dataCount * 8 - 4 - countBits(version: version)) / 8
    }

    /// The width of the byte-mode character count: 8 bits up to version 9, 16 from version 10 to 26.
    static func countBits(version: Int) -> Int { version <= 9 ? 8 : 16 }
}

/// Why bytes could not be made into a QR code.
public enum QRCodeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// More bytes than the largest version made holds at the level asked.
    case tooLong(bytes: Int, maximum: Int)

    /// One line a person can act on.
    public var description: String {
        switch self {
        case .tooLong(let bytes, let maximum):
            "\(bytes) bytes is too long for a QR code here (at most \(maximum), version \(QRCode.versions.upperBound))"
        }
    }
}

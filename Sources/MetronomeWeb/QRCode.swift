import CQRencode
import Glibc

/// A QR code symbol (ISO/IEC 18004) holding bytes in byte mode, made by libqrencode, for the web remote's URL
/// (`metronome serve` prints it at the terminal for a phone's camera).
///
/// Versions 1 to 10 (21 to 57 modules a side) are made, the smallest that holds the bytes at the level of error
/// correction asked; level M holds 14 to 213 bytes over that range. A URL of the web remote with its token is 54 to
/// 100 bytes: version 4 to 6 at level M. M is the default, not L, because a phone reads the code off a screen, through
/// a terminal's gaps between lines, glare and moiré: M restores twice what L does (15 % against 7 %) for two more
/// lines at the terminal (a LAN address's URL, 64 bytes, is version 5 at M, 23 lines, and version 4 at L, 21).
/// libqrencode writes the bytes as one byte-mode segment (`QRcode_encodeData`), chooses the version (we ask for the
/// smallest) and the mask of lowest penalty; versions past 10 are refused here, as a terminal would need more than
/// 33 lines for them.
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

        /// libqrencode's name for the level.
        var level: QRecLevel {
            switch self {
            case .low: QR_ECLEVEL_L
            case .medium: QR_ECLEVEL_M
            case .quartile: QR_ECLEVEL_Q
            case .high: QR_ECLEVEL_H
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
    /// - Throws: `QRCodeError.empty` for no bytes (libqrencode makes no symbol of nothing), `QRCodeError.tooLong`
    ///   when version 10 at this level cannot hold them (both checked before libqrencode is called, so a long input
    ///   costs nothing), or `QRCodeError.encoder` when libqrencode fails (it sets errno: out of memory).
    /// - Complexity: O(n + b) for n modules and b bytes.
    public init(encoding bytes: some Collection<UInt8>, correction: Correction = .medium) throws(QRCodeError) {
        guard !bytes.isEmpty else { throw .empty }
        let maximum = QRCode.capacity(version: QRCode.versions.upperBound, correction)
        guard bytes.count <= maximum else { throw .tooLong(bytes: bytes.count, maximum: maximum) }
        let data = Array(bytes)
        // Version 0: the smallest that holds the data.
        let symbol = data.withUnsafeBufferPointer { buffer in
            QRcode_encodeData(Int32(buffer.count), buffer.baseAddress, 0, correction.level)
        }
        guard let symbol else { throw .encoder(errno: Int(errno)) }
        defer { QRcode_free(symbol) }
        let version = Int(symbol.pointee.version)
        let width = Int(symbol.pointee.width)
        guard QRCode.versions.contains(version), width == 17 + 4 * version else {
            // Not reached: the capacity check above keeps the data within version 10.
            throw .tooLong(bytes: data.count, maximum: maximum)
        }
        // Bit 0 of each module's byte is its colour (1 dark); the others say which pattern it belongs to.
        let cells = UnsafeBufferPointer(start: symbol.pointee.data, count: width * width)
        self.version = version
        self.correction = correction
        self.modules = cells.map { $0 & 1 == 1 }
    }

    /// The most bytes a version holds at a level in byte mode (ISO/IEC 18004, Table 7): its data codewords' bits
    /// less the mode indicator (4 bits) and the count (8 bits up to version 9, 16 from 10), in whole bytes.
    /// - Precondition: `version` is one of `QRCode.versions`.
    public static func capacity(version: Int, _ correction: Correction) -> Int {
        precondition(versions.contains(version), "QR code version \(version) is not made (1 to 10)")
        return byteCapacities[correction.rawValue][version - 1]
    }

    /// Table 7's byte-mode capacities of versions 1 to 10, by level in `Correction`'s order (L, M, Q, H).
    private static let byteCapacities = [
        [17, 32, 53, 78, 106, 134, 154, 192, 230, 271],
        [14, 26, 42, 62, 84, 106, 122, 152, 180, 213],
        [11, 20, 32, 46, 60, 74, 86, 108, 130, 151],
        [7, 14, 24, 34, 44, 58, 64, 84, 98, 119],
    ]
}

/// Why bytes could not be made into a QR code.
public enum QRCodeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No bytes at all.
    case empty
    /// More bytes than the largest version made holds at the level asked.
    case tooLong(bytes: Int, maximum: Int)
    /// libqrencode made no symbol; `errno` is what it set.
    case encoder(errno: Int)

    /// One line a person can act on.
    public var description: String {
        switch self {
        case .empty:
            "there is nothing to draw as a QR code (no bytes)"
        case .tooLong(let bytes, let maximum):
            "\(bytes) bytes is too long for a QR code here (at most \(maximum), version \(QRCode.versions.upperBound))"
        case .encoder(let errno):
            "libqrencode could not make the QR code (errno \(errno))"
        }
    }
}

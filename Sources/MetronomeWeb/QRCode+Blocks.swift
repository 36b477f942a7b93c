extension QRCode {
    /// How a version's codewords are split at one level of error correction (ISO/IEC 18004, Table 9): every block
    /// has `correctionPerBlock` error correction codewords; the first `shortBlocks` hold `shortData` data codewords,
    /// the `longBlocks` after them one more each.
    struct Blocks: Sendable, Hashable {
        /// Error correction codewords in each block.
        let correctionPerBlock: Int
        /// Blocks of `shortData` data codewords (the first group).
        let shortBlocks: Int
        /// Data codewords in each block of the first group.
        let shortData: Int
        /// Blocks of `shortData + 1` data codewords (the second group; 0 when there is none).
        let longBlocks: Int

        /// Data codewords in all.
        var dataCount: Int { shortBlocks * shortData + longBlocks * (shortData + 1) }

        /// Codewords in all, data and error correction.
        var totalCount: Int { dataCount + (shortBlocks + longBlocks) * correctionPerBlock }

        /// The data codewords of a byte-mode segment: mode indicator 0100, the count, the bytes, up to four zero
        /// bits of terminator, zero bits to a byte's end, then the pad codewords 0xEC and 0x11 in turn.
        /// - Precondition: `bytes` fit (`QRCode.capacity`).
        func dataCodewords(byteMode bytes: [UInt8], version: Int) -> [UInt8] {
            var bits = QRBitBuffer()
            bits.append(0b0100, count: 4)
            bits.append(bytes.count, count: QRCode.countBits(version: version))
            for byte in bytes { bits.append(Int(byte), count: 8) }
            let capacity = dataCount * 8
            bits.append(0, count: min(4, capacity - bits.count))
            bits.append(0, count: (8 - bits.count % 8) % 8)
            var codewords = bits.bytes
            var pad: UInt8 = 0xEC
            while codewords.count < dataCount {
                codewords.append(pad)
                pad = pad == 0xEC ? 0x11 : 0xEC
            }
            return codewords
        }

        /// The final sequence of codewords: `data` cut into the blocks in order, each given its error correction;
        /// then the first data codeword of every block, the second…, (the long blocks' last ones after all the
        /// others), and the error correction codewords likewise.
        /// - Precondition: `data.count == dataCount`.
        func interleaved(_ data: [UInt8]) -> [UInt8] {
            let code = QRReedSolomon(degree: correctionPerBlock)
            var dataBlocks: [ArraySlice<UInt8>] = []
            var start = 0
            for block in 0..<(shortBlocks + longBlocks) {
                let length = shortData + (block < shortBlocks ? 0 : 1)
                dataBlocks.append(data[start..<(start + length)])
                start += length
            }
            let correctionBlocks = dataBlocks.map { code.remainder(of: Array($0)) }
            var result: [UInt8] = []
            result.reserveCapacity(totalCount)
            for index in 0...shortData {
                for block in dataBlocks where index < block.count { result.append(block[block.startIndex + index]) }
            }
            for index in 0..<correctionPerBlock {
                for block in correctionBlocks { result.append(block[index]) }
            }
            return result
        }
    }

    /// The blocks of a version (1 to 10) at a level.
    static func blocks(version: Int, _ correction: Correction) -> Blocks {
        blockTable[version - 1][correction.rawValue]
    }

    /// ISO/IEC 18004's Table 9 for versions 1 to 10, levels L, M, Q, H: error correction codewords per block, and
    /// the blocks of each group with their data codewords.
    private static let blockTable: [[Blocks]] = [
        [row(7, 1, 19), row(10, 1, 16), row(13, 1, 13), row(17, 1, 9)],
        [row(10, 1, 34), row(16, 1, 28), row(22, 1, 22), row(28, 1, 16)],
        [row(15, 1, 55), row(26, 1, 44), row(18, 2, 17), row(22, 2, 13)],
        [row(20, 1, 80), row(18, 2, 32), row(26, 2, 24), row(16, 4, 9)],
        [row(26, 1, 108), row(24, 2, 43), row(18, 2, 15, 2), row(22, 2, 11, 2)],
        [row(18, 2, 68), row(16, 4, 27), row(24, 4, 19), row(28, 4, 15)],
        [row(20, 2, 78), row(18, 4, 31), row(18, 2, 14, 4), row(26, 4, 13, 1)],
        [row(24, 2, 97), row(22, 2, 38, 2), row(22, 4, 18, 2), row(26, 4, 14, 2)],
        [row(30, 2, 116), row(22, 3, 36, 2), row(20, 4, 16, 4), row(24, 4, 12, 4)],
        [row(18, 2, 68, 2), row(26, 4, 43, 1), row(24, 6, 19, 2), row(28, 6, 15, 2)],
    ]

    /// One entry of the table: `short` blocks of `data` codewords and `long` of one more, `correction` error
    /// correction codewords each.
    private static func row(_ correction: Int, _ short: Int, _ data: Int, _ long: Int = 0) -> Blocks {
        Blocks(correctionPerBlock: correction, shortBlocks: short, shortData: data, longBlocks: long)
    }
}

/// Bits appended most significant first, read back as bytes.
struct QRBitBuffer: Sendable {
    /// The bytes so far, the last one filled from its high bits.
    private(set) var bytes: [UInt8] = []
    /// Bits appended.
    private(set) var count = 0

    /// Appends the low `count` bits of `value`, most significant first.
    mutating func append(_ value: Int, count: Int) {
        for shift in stride(from: count - 1, through: 0, by: -1) {
            if self.count % 8 == 0 { bytes.append(0) }
            if (value >> shift) & 1 == 1 { bytes[bytes.count - 1] |= 0x80 >> UInt8(self.count % 8) }
            self.count += 1
        }
    }
}

extension QRCode {
    /// One of the eight data masks (ISO/IEC 18004, 7.8.2): a data module is inverted where the mask's condition on
    /// its row i and column j holds. Masks break up patterns a reader could mistake for a finder, and even out dark
    /// and light.
    public struct Mask: Sendable, Hashable, CustomStringConvertible {
        /// The mask pattern reference, 0 to 7 (written in the format information as three bits).
        public let reference: Int

        /// The mask of a reference, or nil unless it is 0 to 7.
        public init?(reference: Int) {
            guard (0...7).contains(reference) else { return nil }
            self.reference = reference
        }

        /// The eight masks, 0 to 7.
        public static let all = (0...7).map { Mask(reference: $0)! }

        /// Whether the mask inverts the module at `row` (i) and `column` (j):
        /// 0: (i + j) mod 2 = 0; 1: i mod 2 = 0; 2: j mod 3 = 0; 3: (i + j) mod 3 = 0;
        /// 4: (⌊i / 2⌋ + ⌊j / 3⌋) mod 2 = 0; 5: (i j) mod 2 + (i j) mod 3 = 0;
        /// 6: ((i j) mod 2 + (i j) mod 3) mod 2 = 0; 7: ((i + j) mod 2 + (i j) mod 3) mod 2 = 0.
        func inverts(row i: Int, column j: Int) -> Bool {
            switch reference {
            case 0: (i + j) % 2 == 0
            case 1: i % 2 == 0
            case 2: j % 3 == 0
            case 3: (i + j) % 3 == 0
            case 4: (i / 2 + j / 3) % 2 == 0
            case 5: (i * j) % 2 + (i * j) % 3 == 0
            case 6: ((i * j) % 2 + (i * j) % 3) % 2 == 0
            default: ((i + j) % 2 + (i * j) % 3) % 2 == 0
            }
        }

        /// The reference as the standard writes it: three binary digits, `010`.
        public var description: String {
            String((0..<3).reversed().map { (reference >> $0) & 1 == 1 ? "1" : "0" })
        }
    }

    /// The penalty of a masked symbol (ISO/IEC 18004, 7.8.3), the lower the better: the sum of `runPenalty`,
    /// `blockPenalty`, `finderLikePenalty` and `balancePenalty` over its modules (rows of dark = true, as many as
    /// each row has), function patterns included.
    /// - Complexity: O(n) for n modules.
    static func penalty(_ rows: [[Bool]]) -> Int {
        let columns = rows.indices.map { column in rows.map { $0[column] } }
        return (rows + columns).reduce(0) { $0 + runPenalty($1) + finderLikePenalty($1) } + blockPenalty(rows)
            + balancePenalty(rows)
    }

    /// Rule 1, for one row or column: each run of five or more modules of one colour costs 3, and 1 more for each
    /// module past five.
    static func runPenalty(_ line: [Bool]) -> Int {
        var total = 0
        var run = 0
        for (index, module) in line.enumerated() {
            run = index > 0 && module == line[index - 1] ? run + 1 : 1
            let ends = index == line.count - 1 || line[index + 1] != module
            if ends, run >= 5 { total += 3 + run - 5 }
        }
        return total
    }

    /// Rule 2: each 2 × 2 square of one colour costs 3 (squares overlap: a 3 × 2 block is two).
    static func blockPenalty(_ rows: [[Bool]]) -> Int {
        var total = 0
        for row in rows.indices.dropLast() {
            for column in rows[row].indices.dropLast() {
                let module = rows[row][column]
                if rows[row][column + 1] == module, rows[row + 1][column] == module, rows[row + 1][column + 1] == module
                {
                    total += 3
                }
            }
        }
        return total
    }

    /// Rule 3, for one row or column: each dark-light-dark-dark-dark-light-dark (1:1:3:1:1) with four light modules
    /// before or after it, inside the symbol, costs 40.
    static func finderLikePenalty(_ line: [Bool]) -> Int {
        let before: [Bool] = [false, false, false, false, true, false, true, true, true, false, true]
        let after = Array(before.reversed())
        guard line.count >= before.count else { return 0 }
        var total = 0
        for start in 0...(line.count - before.count) {
            let window = line[start..<(start + before.count)]
            if window.elementsEqual(before) { total += 40 }
            if window.elementsEqual(after) { total += 40 }
        }
        return total
    }

    /// Rule 4: 10 for each full 5 % by which the share of dark modules is away from 50 %.
    static func balancePenalty(_ rows: [[Bool]]) -> Int {
        let total = rows.reduce(0) { $0 + $1.count }
        guard total > 0 else { return 0 }
        let darkCount = rows.reduce(0) { $0 + $1.count(where: { $0 }) }
        return 10 * (abs(20 * darkCount - 10 * total) / total)
    }
}

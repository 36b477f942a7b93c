/// Reed–Solomon error correction as QR codes use it (ISO/IEC 18004, 7.5.2): codewords are elements of GF(2⁸) built
/// on the primitive polynomial x⁸ + x⁴ + x³ + x² + 1 (0x11D), with α = 2; the generator polynomial for n error
/// correction codewords is (x − α⁰)(x − α¹)…(x − αⁿ⁻¹), and a block's error correction codewords are the remainder
/// of its data polynomial times xⁿ divided by the generator. (In GF(2⁸) addition and subtraction are both XOR.)
struct QRReedSolomon: Sendable {
    /// The generator polynomial's coefficients, highest degree first: `degree + 1` of them, the first 1.
    let generator: [UInt8]

    /// The generator for `degree` error correction codewords.
    /// - Complexity: O(degree²).
    init(degree: Int) {
        var polynomial: [UInt8] = [1]
        for power in 0..<degree {
            // Multiply by (x + αᵖᵒʷᵉʳ): shift up one degree, then add the old polynomial times αᵖᵒʷᵉʳ.
            let root = QRReedSolomon.exponents[power % 255]
            var product = polynomial + [0]
            for (index, coefficient) in polynomial.enumerated() {
                product[index + 1] ^= QRReedSolomon.multiply(coefficient, root)
            }
            polynomial = product
        }
        generator = polynomial
    }

    /// The error correction codewords of one block: the remainder of `data` · xⁿ divided by the generator (n is
    /// the degree), computed as a shift register that takes one data codeword a step.
    /// - Complexity: O(data.count × degree).
    func remainder(of data: [UInt8]) -> [UInt8] {
        let degree = generator.count - 1
        guard degree > 0 else { return [] }
        var remainder = [UInt8](repeating: 0, count: degree)
        for codeword in data {
            let factor = codeword ^ remainder[0]
            remainder.removeFirst()
            remainder.append(0)
            for index in 0..<degree {
                remainder[index] ^= QRReedSolomon.multiply(generator[index + 1], factor)
            }
        }
        return remainder
    }

    /// αⁱ for i in 0..<255: the powers of 2, reduced by 0x11D whenever one overflows a byte.
    static let exponents: [UInt8] = {
        var table = [UInt8](repeating: 0, count: 255)
        var value = 1
        for index in 0..<255 {
            table[index] = UInt8(value)
            value <<= 1
            if value > 0xFF { value ^= 0x11D }
        }
        return table
    }()

    /// The logarithm to the base α of every non-zero byte (the entry for 0 is unused).
    static let logarithms: [Int] = {
        var table = [Int](repeating: 0, count: 256)
        for (power, value) in exponents.enumerated() { table[Int(value)] = power }
        return table
    }()

    /// The product of two elements of GF(2⁸), through their logarithms.
    static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        guard a != 0, b != 0 else { return 0 }
        return exponents[(logarithms[Int(a)] + logarithms[Int(b)]) % 255]
    }
}

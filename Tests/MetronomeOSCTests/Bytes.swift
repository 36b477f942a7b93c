/// Bytes from a hexadecimal string; spaces and line breaks are ignored ("2f 66 6f 6f").
func hex(_ text: String) -> [UInt8] {
    let digits = Array(text.unicodeScalars.filter { !$0.properties.isWhitespace })
    precondition(digits.count % 2 == 0, "odd number of hex digits in \(text)")
    return stride(from: 0, to: digits.count, by: 2).map {
        UInt8(String(String.UnicodeScalarView(digits[$0...$0 + 1])), radix: 16)!
    }
}

/// The UTF-8 bytes of `text` (which may hold `\0`), for building packets by hand.
func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }

/// A packet's bytes in hexadecimal, two digits a byte, no separators.
func hexString(_ bytes: [UInt8]) -> String {
    bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
}

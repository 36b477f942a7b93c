extension QRCode {
    /// The light margin drawn around the symbol, in modules: the 4 the standard asks for.
    public static let quietZone = 4

    /// The colours every line of `terminalText` is drawn in: white characters (SGR 37), the light modules, on black
    /// (SGR 40), the dark ones.
    public static let terminalColours = "\u{1B}[37;40m"

    /// What ends every line of `terminalText` before its newline: SGR 0, so that the white stops at the symbol's
    /// edge (a newline at the bottom of the screen scrolls, and some terminals fill the new line with the colour in
    /// force).
    public static let terminalReset = "\u{1B}[0m"

    /// The symbol and its quiet zone as text for a terminal: two rows of modules a line, each character a column of
    /// two (`█` both light, `▀` the upper, `▄` the lower, a space neither), every line in `terminalColours` and ended
    /// by `terminalReset` and a newline. The colours are set, not the terminal's own, so the symbol is dark on
    /// light on a dark terminal as on a light one. Light modules are the characters and dark ones the black behind
    /// them because a terminal whose font's block characters fall short of the line's height leaves a thin line of
    /// background between lines: black there only thins light rows at their edges, where white would cut the finder
    /// patterns' 3-module dark centres in two, and readers find a symbol by those (Benchmarks/qr-terminal: xterm
    /// with DejaVu Sans Mono, read by zbarimg at 8, 11 and 14 points one way, at none the other). When the rows are
    /// odd in number (they always are: 17 + 4 × version + 8), the last line's lower half is light, one more row of
    /// quiet zone.
    ///
    /// Version 5, the web remote's usual URL at level M, is 45 columns and 23 lines.
    /// - Complexity: O(n) for n modules.
    public var terminalText: String {
        let side = size + 2 * QRCode.quietZone
        func isDark(_ row: Int, _ column: Int) -> Bool {
            let row = row - QRCode.quietZone
            let column = column - QRCode.quietZone
            return (0..<size).contains(row) && (0..<size).contains(column) && self[row, column]
        }
        var text = ""
        for row in stride(from: 0, to: side, by: 2) {
            text += QRCode.terminalColours
            for column in 0..<side {
                switch (isDark(row, column), isDark(row + 1, column)) {
                case (false, false): text += "█"
                case (false, true): text += "▀"
                case (true, false): text += "▄"
                case (true, true): text += " "
                }
            }
            text += QRCode.terminalReset + "\n"
        }
        return text
    }
}

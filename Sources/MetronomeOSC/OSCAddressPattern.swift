/// An OSC 1.0 address pattern, parsed once and matched against concrete addresses.
///
/// The pattern and the address are split at `/`; they match when they have the same number of parts and each
/// pattern part matches its address part as a whole. Within a part (OSC 1.0):
/// - `?` matches any one character; `*` any run of characters, none included (never a `/`);
/// - `[abc]` one of the characters; `[a-z]` one in the range, by Unicode scalar value (a reversed range `[z-a]`
///   means the same as `[a-z]`); `-` first or last is itself; `[!abc]` negates, `!` elsewhere is itself; `[]` matches
///   nothing and `[!]` any one character;
/// - `{foo,bar}` one of the comma-separated strings, taken literally (`{,x}` matches nothing or `x`);
/// - every other character matches itself.
///
/// Characters are Unicode scalars, so `?` matches one whole `é`.
public struct OSCAddressPattern: Sendable, Equatable, CustomStringConvertible {
    /// The pattern as given.
    public let pattern: String
    private let parts: [[OSCPatternToken]]

    /// Parses a pattern.
    ///
    /// - Parameter pattern: an address pattern, for instance `/metronome/{play,stop}`.
    /// - Throws: ``OSCError/addressNotSlash(_:)`` when it does not start with `/`; ``OSCError/patternUnclosed(pattern:character:bracket:)``
    ///   for a `[` or `{` with no closing bracket in its part; ``OSCError/patternUnexpected(pattern:character:found:)``
    ///   for a `]` or `}` with no opening one, or a `{` inside braces.
    /// - Complexity: O(n) in the pattern's length.
    public init(_ pattern: String) throws(OSCError) {
        let scalars = Array(pattern.unicodeScalars)
        guard scalars.first == "/" else { throw .addressNotSlash(pattern) }
        var parts: [[OSCPatternToken]] = []
        var start = 1
        while start <= scalars.count {
            let end = scalars[start...].firstIndex(of: "/") ?? scalars.count
            parts.append(try Self.parsePart(scalars, start..<end, pattern: pattern))
            start = end + 1
        }
        self.pattern = pattern
        self.parts = parts
    }

    /// The pattern as given.
    public var description: String { pattern }

    /// Whether a concrete address matches this pattern.
    ///
    /// - Parameter address: an address such as `/metronome/play`; one not starting with `/` never matches.
    /// - Returns: `true` when every part matches its counterpart.
    /// - Complexity: O(p · a) per part, in the pattern's tokens and the address part's characters (times the
    ///   alternatives of a `{…}`); no backtracking blow-up.
    public func matches(_ address: String) -> Bool {
        let scalars = Array(address.unicodeScalars)
        guard scalars.first == "/" else { return false }
        let addressParts = scalars.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        guard addressParts.count == parts.count else { return false }
        return zip(parts, addressParts).allSatisfy { Self.match($0, Array($1)) }
    }

    /// Dynamic programming over (token, character): `reachable[a]` says the tokens so far can consume `a` characters.
    private static func match(_ tokens: [OSCPatternToken], _ text: [Unicode.Scalar]) -> Bool {
        var reachable = [Bool](repeating: false, count: text.count + 1)
        reachable[0] = true
        for token in tokens {
            var next = [Bool](repeating: false, count: text.count + 1)
            guard let first = reachable.firstIndex(of: true) else { return false }
            if case .anyRun = token {
                for index in first...text.count { next[index] = true }
                reachable = next
                continue
            }
            for index in first..<reachable.count where reachable[index] {
                switch token {
                case .literal(let scalar):
                    if index < text.count && text[index] == scalar { next[index + 1] = true }
                case .anyCharacter:
                    if index < text.count { next[index + 1] = true }
                case .set(let negated, let ranges):
                    if index < text.count && ranges.contains(where: { $0.contains(text[index].value) }) != negated {
                        next[index + 1] = true
                    }
                case .alternatives(let choices):
                    for choice in choices where text[index...].starts(with: choice) {
                        next[index + choice.count] = true
                    }
                case .anyRun:
                    break
                }
            }
            reachable = next
        }
        return reachable[text.count]
    }

    private static func parsePart(
        _ scalars: [Unicode.Scalar], _ range: Range<Int>, pattern: String
    ) throws(OSCError) -> [OSCPatternToken] {
        var tokens: [OSCPatternToken] = []
        var index = range.lowerBound
        while index < range.upperBound {
            let scalar = scalars[index]
            switch scalar {
            case "?":
                tokens.append(.anyCharacter)
            case "*":
                if tokens.last != .anyRun { tokens.append(.anyRun) }
            case "[":
                guard let close = scalars[index..<range.upperBound].firstIndex(of: "]") else {
                    throw .patternUnclosed(pattern: pattern, character: index, bracket: "[")
                }
                tokens.append(set(Array(scalars[index + 1..<close])))
                index = close
            case "{":
                guard let close = scalars[index..<range.upperBound].firstIndex(of: "}") else {
                    throw .patternUnclosed(pattern: pattern, character: index, bracket: "{")
                }
                if let nested = scalars[index + 1..<close].firstIndex(of: "{") {
                    throw .patternUnexpected(pattern: pattern, character: nested, found: "{")
                }
                let choices = scalars[index + 1..<close].split(separator: ",", omittingEmptySubsequences: false)
                tokens.append(.alternatives(choices.map { Array($0) }))
                index = close
            case "]", "}":
                throw .patternUnexpected(pattern: pattern, character: index, found: Character(scalar))
            default:
                tokens.append(.literal(scalar))
            }
            index += 1
        }
        return tokens
    }

    /// The contents of `[…]`: `!` first negates, `x-y` is a range unless `-` is last.
    private static func set(_ contents: [Unicode.Scalar]) -> OSCPatternToken {
        let negated = contents.first == "!"
        var ranges: [ClosedRange<UInt32>] = []
        var index = negated ? 1 : 0
        while index < contents.count {
            if index + 2 < contents.count && contents[index + 1] == "-" {
                let (low, high) = (contents[index].value, contents[index + 2].value)
                ranges.append(min(low, high)...max(low, high))
                index += 3
            } else {
                ranges.append(contents[index].value...contents[index].value)
                index += 1
            }
        }
        return .set(negated: negated, ranges: ranges)
    }
}

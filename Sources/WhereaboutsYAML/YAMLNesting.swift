/// A bound on how deeply YAML text nests, checked on the text before it is parsed.
///
/// Yams, the YAML reader before ``YAMLDocument``, built its node tree recursively without a
/// limit: a 20 KB file of `[` overflowed the stack and killed the process (found by the `circles`
/// and `config` fuzz harnesses, docs/fuzzing.md). ``YAMLDocument`` builds its tree with an explicit
/// stack and refuses nesting past ``limit`` itself; this textual check stays in front of it so that
/// each file's reader can say, in its own words, how deep the file should nest. The circles file
/// nests 5 levels and the publisher's config file 2, so files are refused long before any cost.
package enum YAMLNesting {
    /// The deepest nesting accepted; far above what the files need.
    package static let limit = 64

    /// The 1-based line where `text` may nest deeper than `limit`, or `nil` when it cannot.
    ///
    /// The estimate never falls below the true depth: open flow collections (`[`, `{`) outside
    /// quotes and comments, plus the column where a line's content starts after its indentation
    /// and block indicators (`- `, `? `, `: `), since each block level takes at least one column.
    package static func lineDeeperThanLimit(in text: String) -> Int? {
        let space: UInt8 = 0x20, tab: UInt8 = 0x09, newline: UInt8 = 0x0A
        var flowDepth = 0
        var line = 1
        var column = 0  // columns of indentation and block indicators so far on this line
        var atLineStart = true
        var inComment = false
        var quote: UInt8? = nil  // quoted scalars are followed within a line only (an over-estimate)
        var previous: UInt8 = newline
        var lastSignificant: UInt8 = newline  // the last byte on this line other than a space or tab
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            let following: UInt8? = index + 1 < bytes.count ? bytes[index + 1] : nil
            index += 1
            defer {
                previous = byte
                if byte != space, byte != tab { lastSignificant = byte }
            }
            if byte == newline {
                (line, column, atLineStart, inComment, quote) = (line + 1, 0, true, false, nil)
                continue
            }
            if atLineStart {
                let isIndicator = (byte == UInt8(ascii: "-") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: ":"))
                    && (following == nil || following == space || following == tab || following == newline)
                if byte == space || byte == tab || isIndicator {
                    column += 1
                    if flowDepth + column > limit { return line }
                    continue
                }
                atLineStart = false
            }
            if inComment { continue }
            if let open = quote {
                if byte == UInt8(ascii: "\\"), open == UInt8(ascii: "\"") {
                    index += 1  // the escaped character
                } else if byte == open {
                    if open == UInt8(ascii: "'"), following == open { index += 1 } else { quote = nil }  // '' is a quote
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "#") where previous == space || previous == tab || previous == newline:
                inComment = true
            case UInt8(ascii: "'") where startsScalar(after: lastSignificant), UInt8(ascii: "\"") where startsScalar(after: lastSignificant):
                quote = byte
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                flowDepth += 1
                if flowDepth + column > limit { return line }
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                flowDepth = max(0, flowDepth - 1)
            default:
                break
            }
        }
        return nil
    }

    /// Whether a quote after `byte` opens a quoted scalar (elsewhere it is part of a plain one).
    private static func startsScalar(after byte: UInt8) -> Bool {
        switch byte {
        case 0x0A, UInt8(ascii: "["), UInt8(ascii: "{"), UInt8(ascii: ","), UInt8(ascii: ":"),
            UInt8(ascii: "-"), UInt8(ascii: "?"), UInt8(ascii: "!"), UInt8(ascii: "&"):
            true
        default:
            false
        }
    }
}

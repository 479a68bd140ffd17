/// Byte-level helpers for the ASCII text of GPX numbers and NMEA sentences. Working on UTF-8 code
/// units avoids the grapheme-cluster machinery of `Character` operations, which dominates the cost
/// of reading a large track otherwise.
extension StringProtocol {
    /// The text without leading and trailing ASCII whitespace (space, tab, CR, LF, NUL).
    var asciiTrimmed: Substring {
        let text = Substring(self)
        let bytes = text.utf8
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, isASCIISpace(bytes[start]) { start = bytes.index(after: start) }
        while end > start, isASCIISpace(bytes[bytes.index(before: end)]) { end = bytes.index(before: end) }
        return text[start..<end]
    }

    /// The text after the last `:` (an XML name without its namespace prefix).
    var afterLastColon: Substring {
        let text = Substring(self)
        guard let colon = text.utf8.lastIndex(of: UInt8(ascii: ":")) else { return text }
        return text[text.utf8.index(after: colon)...]
    }
}

@inline(__always)
func isASCIISpace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0
}

import CYAML

/// Reads YAML text into a ``YAMLNode`` tree, through libyaml's event parser (`yaml_parser_parse`).
///
/// Why hand-written over libyaml rather than Yams: Yams links full Foundation (its resolver uses
/// NSRegularExpression, its constructors NumberFormatter and friends), and with it ICU's data
/// table: 34 MB of the publisher's 64.4 MB stripped binary (BENCHMARKS.md, "Binary size"). Our
/// files need a tree of scalars, lists and mappings with line and column marks, which libyaml's
/// events give directly; this module needs no Foundation at all.
///
/// What it accepts and refuses:
/// - One document per text; a second (`---` after a first) is an error naming its line.
/// - Collections nest at most ``YAMLNesting/limit`` levels; the tree is built with an explicit
///   stack, so deeper text is an error, never a stack overflow.
/// - Anchors are ignored and aliases (`*name`) refused with their line: none of our files needs
///   them, and refusing them rules out alias bombs ("billion laughs").
/// - Invalid UTF-8 and control characters are refused with their line and column (libyaml's
///   reader); tabs are refused where YAML forbids them (indentation).
/// - Repeated keys are kept, in order, for the reader to name (``YAMLNode/repeatedKey``).
package enum YAMLDocument {
    /// The document in `text`, or `nil` when the text holds none (empty, or only comments).
    package static func parse(_ text: String, nestingLimit: Int = YAMLNesting.limit) throws(YAMLParseError) -> YAMLNode? {
        try parse(bytes: Array(text.utf8), nestingLimit: nestingLimit)
    }

    /// The document in the UTF-8 (or UTF-16, with a byte order mark) `bytes`, or `nil` when they
    /// hold none.
    package static func parse(bytes: [UInt8], nestingLimit: Int = YAMLNesting.limit) throws(YAMLParseError) -> YAMLNode? {
        guard !bytes.isEmpty else { return nil }
        return try bytes.withUnsafeBufferPointer { buffer throws(YAMLParseError) in try parse(buffer, nestingLimit: nestingLimit) }
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>, nestingLimit: Int) throws(YAMLParseError) -> YAMLNode? {
        let parser = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
        defer { parser.deallocate() }
        guard yaml_parser_initialize(parser) == 1 else {
            throw YAMLParseError("libyaml could not allocate a parser", at: YAMLMark(line: 1, column: 1))
        }
        defer { yaml_parser_delete(parser) }
        yaml_parser_set_input_string(parser, bytes.baseAddress, bytes.count)  // read in place
        var builder = TreeBuilder(nestingLimit: nestingLimit)
        var event = yaml_event_t()
        while true {
            guard yaml_parser_parse(parser, &event) == 1 else {
                throw error(of: parser.pointee, in: bytes)
            }
            defer { yaml_event_delete(&event) }
            if event.type == YAML_STREAM_END_EVENT { break }
            try builder.add(event)
        }
        return builder.root
    }

    /// The parser's error, with the mark libyaml gives or, for a reader error (bad UTF-8, a
    /// control character), the line and column of its byte offset.
    private static func error(of parser: yaml_parser_t, in bytes: UnsafeBufferPointer<UInt8>) -> YAMLParseError {
        let problem = parser.problem.map { String(cString: $0) } ?? "unknown error"
        switch parser.error {
        case YAML_MEMORY_ERROR:
            return YAMLParseError("libyaml ran out of memory", at: YAMLMark(line: 1, column: 1))
        case YAML_READER_ERROR:
            let detail = parser.problem_value >= 0 ? hexCode(parser.problem_value) : ""
            return YAMLParseError(problem + detail, at: mark(ofOffset: parser.problem_offset, in: bytes))
        default:
            var message = problem
            if let offset = offset(of: YAMLMark(parser.problem_mark), in: bytes), bytes[offset] == 0x09 {
                message += " (a tab: YAML indents with spaces only)"
            }
            if let context = parser.context {
                message += " (\(String(cString: context)) that starts at \(YAMLMark(parser.context_mark)))"
            }
            return YAMLParseError(message, at: YAMLMark(parser.problem_mark))
        }
    }

    /// The byte offset of `mark` (libyaml counts its index in characters, not bytes).
    private static func offset(of mark: YAMLMark, in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var line = 1, column = 1
        for (offset, byte) in bytes.enumerated() {
            if byte & 0xC0 == 0x80 { continue }  // a continuation byte: still the same character
            if line == mark.line, column == mark.column { return offset }
            if byte == 0x0A { (line, column) = (line + 1, 1) } else { column += 1 }
        }
        return nil
    }

    private static func mark(ofOffset offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> YAMLMark {
        var line = 1, column = 1
        for byte in bytes.prefix(offset) {
            if byte == 0x0A {
                (line, column) = (line + 1, 1)
            } else if byte & 0xC0 != 0x80 {  // not a continuation byte: a new character
                column += 1
            }
        }
        return YAMLMark(line: line, column: column)
    }
}

extension YAMLMark {
    init(_ mark: yaml_mark_t) {
        self.init(line: Int(mark.line) + 1, column: Int(mark.column) + 1)
    }
}

/// ` (#xFF)`: the offending byte or character libyaml's reader names.
private func hexCode(_ value: Int32) -> String {
    let hex = String(value, radix: 16, uppercase: true)
    return " (#x" + (hex.count < 2 ? "0" + hex : hex) + ")"
}

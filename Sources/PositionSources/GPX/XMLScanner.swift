#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A small, strict, streaming XML 1.0 tokenizer over UTF-8 bytes, written for the GPX reader so
/// that `PositionSources` needs neither Foundation's XML parser nor libxml2.
///
/// The scanner works on bytes in memory (``scan(_:maximumDepth:_:)``) or on a file read as a
/// stream through a bounded window (``scan(reading:window:windowLimit:maximumDepth:_:)``), and
/// hands out one ``Token`` at a time. Names and undecoded text point straight into the input;
/// only text or attribute values with entity references or carriage returns are decoded into a
/// scratch buffer. Every view it hands out is valid until the next call to ``next()``.
///
/// Streamed, the window is topped up between tokens; a token that runs past the window's end is
/// read again from its start after the window has grown (up to `windowLimit`), and text longer
/// than the window comes in several runs. Memory therefore stays within a few times
/// `windowLimit` on a file of any size; a single tag, comment, CDATA section or DOCTYPE longer
/// than `windowLimit` is an error.
///
/// What it accepts:
/// - elements, with attributes in single or double quotes and self-closing tags (reported as a
///   start and an end); names may carry a namespace prefix, which the scanner keeps as part of
///   the name (``localName(_:)`` drops it); no namespace processing is done;
/// - text, the five predefined entities (`&lt;` `&gt;` `&amp;` `&apos;` `&quot;`) and numeric
///   character references (`&#65;`, `&#x41;`), decoded in text and attribute values; line ends
///   are normalised (CR LF and CR become LF; in attribute values, tab, CR and LF become spaces);
/// - CDATA sections (reported as text), comments, processing instructions, the XML declaration
///   (version `1.x`, an ASCII-compatible encoding, `standalone`), and one DOCTYPE, which is
///   skipped whole: no DTD is read, no external entity is ever resolved and no entity is expanded;
/// - a UTF-8 byte-order mark; a UTF-16 document with a byte-order mark is converted to UTF-8 first
///   (``utf8(fromUTF16WithBOM:)``).
///
/// Bytes from 0x80 up are taken as they are, in text and in names: they are never decoded, so
/// invalid UTF-8 can never trap; it only reaches the consumer's own number parsing.
///
/// What it rejects, each as an ``XMLSyntaxError`` with the line number (counted in LFs, from 1)
/// and a reason: a mismatched end tag; an unterminated tag, comment, CDATA section, processing
/// instruction, DOCTYPE or attribute value; the end of input before the root element closes; text
/// or a second element after the root; bad attribute syntax (missing `=`, unquoted value, no
/// space between attributes), `<` in an attribute value, a duplicate attribute; an unknown entity
/// or a malformed reference; `]]>` in text; `--` inside a comment; control characters other than
/// tab, LF and CR; a misplaced or malformed XML declaration; elements nested deeper than
/// ``maximumDepth``. The first error ends the scan: there is no recovery.
struct XMLScanner {
    /// One step of the document.
    enum Token {
        /// A start tag (or the start of a self-closing tag); its attributes are in ``attributes``.
        case startElement(name: UnsafeBufferPointer<UInt8>)
        /// An end tag, or the end of a self-closing tag.
        case endElement(name: UnsafeBufferPointer<UInt8>)
        /// A run of character data (text or a CDATA section), already decoded. Consecutive runs
        /// (text around a comment, a CDATA section) come as separate tokens.
        case text(UnsafeBufferPointer<UInt8>)
    }

    /// One attribute of the latest start tag. `value` is as written, between the quotes; use
    /// ``value(of:)`` or ``decodedValue(_:)`` for its decoded text.
    struct Attribute {
        /// The attribute's qualified name (`lat`, `xmlns:gpxtpx`).
        var name: UnsafeBufferPointer<UInt8>
        /// The raw value between the quotes, already checked to be well-formed.
        var rawValue: UnsafeBufferPointer<UInt8>
        /// Whether `rawValue` holds references or white space that decoding changes.
        var needsDecoding: Bool
    }

    /// The deepest element nesting accepted, far beyond any GPX file (which nests fewer than ten
    /// deep); deeper input is rejected rather than held on an ever longer stack of open elements.
    let maximumDepth: Int

    /// The attributes of the latest start tag, in document order.
    private(set) var attributes: [Attribute] = []

    /// The bytes in reach: all of them, or the current window of a streamed input.
    private var input: UnsafeBufferPointer<UInt8>
    /// Where scanning may go: the first byte that is not allowed in XML at all (a control
    /// character), or the end of the input. Reaching it before the end is an error.
    private var limit: Int
    private var position = 0
    /// The names of the open elements, one after the other (copied: a window moves on).
    private var openNames: [UInt8] = []
    /// Where each open element's name ends in ``openNames``.
    private var openNameEnds: [Int] = []
    private var pendingEnd = false
    private var atStart = true
    private var phase = Phase.prolog
    private var scratch: [UInt8] = []
    private var decodedText: UnsafeMutableBufferPointer<UInt8>
    private var lineOffset = 0
    private var lineAtOffset = 1

    private enum Phase { case prolog, content, epilog }

    /// Where a streamed scan reads: fills the buffer from its start and returns how many bytes it
    /// wrote; 0 at the end of the input (or on a read error, which its owner reports).
    typealias Refill = (UnsafeMutableRawBufferPointer) -> Int

    /// The window of a streamed input (nil for bytes in memory).
    private var window: UnsafeMutableRawBufferPointer?
    private var refill: Refill?
    /// Whether ``input`` holds the end of the document.
    private var inputComplete = true
    /// How far the window may grow to hold one token.
    private var windowLimit = Int.max
    /// How far ``limit`` has been established (bytes checked for control characters).
    private var checkedUpTo = 0
    /// Whether the last failed step ran into the end of a window that the input goes on past.
    private var ranOutOfWindow = false
    /// Whether nothing but white space has been seen so far.
    private(set) var isBlank = true

    /// Scans `bytes` (UTF-8, or UTF-16 with a byte-order mark) with `body`, which reads the
    /// tokens with ``next()``. The scanner and every view it hands out live only inside `body`.
    static func scan<R, E: Error>(
        _ bytes: some ContiguousBytes,
        maximumDepth: Int = 1024,
        _ body: (inout XMLScanner) throws(E) -> R
    ) throws(E) -> R {
        let result: Result<R, E> = bytes.withUnsafeBytes { raw in
            let buffer = raw.bindMemory(to: UInt8.self)
            if let converted = utf8(fromUTF16WithBOM: buffer) {
                return converted.withUnsafeBufferPointer { utf8 in
                    var scanner = XMLScanner(utf8, maximumDepth: maximumDepth, declaredUTF16: true)
                    defer { scanner.decodedText.deallocate() }
                    return Result(catching: { () throws(E) -> R in try body(&scanner) })
                }
            }
            var scanner = XMLScanner(buffer, maximumDepth: maximumDepth, declaredUTF16: false)
            defer { scanner.decodedText.deallocate() }
            return Result(catching: { () throws(E) -> R in try body(&scanner) })
        }
        return try result.get()
    }

    /// Scans the bytes `refill` reads, as a stream, through a window of `window` bytes that
    /// grows to at most `windowLimit` while one token needs it (see the type's notes). A UTF-16
    /// document (byte-order mark first) is converted to UTF-8 as it is read.
    static func scan<R, E: Error>(
        reading refill: Refill,
        window: Int = 64 << 10,
        windowLimit: Int = 4 << 20,
        maximumDepth: Int = 1024,
        _ body: (inout XMLScanner) throws(E) -> R
    ) throws(E) -> R {
        let result: Result<R, E> = withoutActuallyEscaping(refill) { refill in
            let capacity = max(8, window)
            let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 1)
            var (filled, ended) = fill(storage, from: 0, refill)
            var source = refill
            var declaredUTF16 = false
            if filled >= 2, storage[0] == 0xFE && storage[1] == 0xFF || storage[0] == 0xFF && storage[1] == 0xFE {
                var stream = UTF16Stream(bigEndian: storage[0] == 0xFE, carry: Array(storage[2..<filled]), sourceEnded: ended)
                source = { stream.fill($0, from: refill) }
                (filled, ended) = fill(storage, from: 0, source)
                declaredUTF16 = true
            }
            let first = UnsafeBufferPointer(start: storage.baseAddress?.assumingMemoryBound(to: UInt8.self), count: filled)
            var scanner = XMLScanner(first, maximumDepth: maximumDepth, declaredUTF16: declaredUTF16)
            scanner.window = storage
            scanner.refill = source
            scanner.inputComplete = ended
            scanner.windowLimit = max(capacity, windowLimit)
            defer {
                scanner.decodedText.deallocate()
                scanner.window?.deallocate()
                scanner.refill = nil
            }
            return Result(catching: { () throws(E) -> R in try body(&scanner) })
        }
        return try result.get()
    }

    /// Fills `storage` from offset `start` with what `refill` reads: how far it is filled, and
    /// whether the input ended first.
    private static func fill(_ storage: UnsafeMutableRawBufferPointer, from start: Int, _ refill: Refill) -> (filled: Int, ended: Bool) {
        var filled = start
        while filled < storage.count {
            let count = refill(UnsafeMutableRawBufferPointer(rebasing: storage[filled...]))
            guard count > 0 else { return (filled, true) }
            filled += count
        }
        return (filled, false)
    }

    private let allowsUTF16Declaration: Bool

    private init(_ input: UnsafeBufferPointer<UInt8>, maximumDepth: Int, declaredUTF16: Bool) {
        self.input = input
        self.maximumDepth = maximumDepth
        allowsUTF16Declaration = declaredUTF16
        limit = input.count
        decodedText = .allocate(capacity: 64)
        checkControlCharacters()
        if input.count >= 3, input[0] == 0xEF, input[1] == 0xBB, input[2] == 0xBF {
            position = 3
            isBlank = false
        }
        if declaredUTF16 { isBlank = false }
    }

    /// Sets ``limit`` at the first control character XML forbids, checking the bytes not yet checked.
    private mutating func checkControlCharacters() {
        guard limit == input.count else { return }  // one was found already
        var index = checkedUpTo
        while index < input.count {
            let byte = input[index]
            if byte < 0x20, byte != 0x09, byte != 0x0A, byte != 0x0D { break }
            index += 1
        }
        limit = index
        checkedUpTo = index
    }

    // MARK: The window of a streamed input

    /// The state a step changes, to read a token again from its start.
    private struct Checkpoint {
        var position: Int
        var atStart: Bool
        var phase: Phase
        var sawDoctype: Bool
        var lineOffset: Int
        var lineAtOffset: Int
        var isBlank: Bool
    }

    private var checkpoint: Checkpoint {
        Checkpoint(position: position, atStart: atStart, phase: phase, sawDoctype: sawDoctype,
                   lineOffset: lineOffset, lineAtOffset: lineAtOffset, isBlank: isBlank)
    }

    private mutating func restore(_ saved: Checkpoint) {
        position = saved.position
        atStart = saved.atStart
        phase = saved.phase
        sawDoctype = saved.sawDoctype
        lineOffset = saved.lineOffset
        lineAtOffset = saved.lineAtOffset
        isBlank = saved.isBlank
    }

    /// Drops the bytes before the position and fills the window (grown to `capacity`) from the input.
    private mutating func slideWindow(capacity: Int) {
        guard let refill, var storage = window else { return }
        _ = line(at: position)  // count the lines of the bytes about to go
        let kept = input.count - position
        if let base = storage.baseAddress, position > 0, kept > 0 {
            base.copyMemory(from: base + position, byteCount: kept)
        }
        if capacity > storage.count {
            let grown = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 1)
            if let to = grown.baseAddress, let from = storage.baseAddress, kept > 0 {
                to.copyMemory(from: from, byteCount: kept)
            }
            storage.deallocate()
            storage = grown
            window = grown
        }
        let (filled, ended) = Self.fill(storage, from: kept, refill)
        inputComplete = ended
        // Only called while no control character was found: the limit is the window's end.
        let shift = position
        input = UnsafeBufferPointer(start: storage.baseAddress?.assumingMemoryBound(to: UInt8.self), count: filled)
        position = 0
        lineOffset -= shift
        limit = filled
        checkedUpTo = max(0, checkedUpTo - shift)
        checkControlCharacters()
    }

    /// Tops the window up when a quarter of it or less is left to read.
    private mutating func topUpWindow() {
        guard let window, !inputComplete, limit == input.count else { return }
        if input.count - position <= window.count / 4 { slideWindow(capacity: window.count) }
    }

    /// `bytes` converted to UTF-8 when they start with a UTF-16 byte-order mark; otherwise nil.
    static func utf8(fromUTF16WithBOM bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard bytes.count >= 2 else { return nil }
        let bigEndian: Bool
        switch (bytes[0], bytes[1]) {
        case (0xFE, 0xFF): bigEndian = true
        case (0xFF, 0xFE): bigEndian = false
        default: return nil
        }
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2)
        var index = 2
        while index + 1 < bytes.count {
            let (high, low) = bigEndian ? (bytes[index], bytes[index + 1]) : (bytes[index + 1], bytes[index])
            units.append(UInt16(high) << 8 | UInt16(low))
            index += 2
        }
        // An odd trailing byte cannot be a character: keep it as an invalid one so that it is
        // reported as trailing content rather than silently dropped.
        var utf8 = Array(String(decoding: units, as: UTF16.self).utf8)
        if index < bytes.count { utf8.append(0xFF) }
        return utf8
    }

    // MARK: Reading tokens

    /// The next token, nil at the end of a well-formed document, or an ``XMLSyntaxError`` at the
    /// first fault (after which the scanner must not be used again).
    mutating func next() throws(XMLSyntaxError) -> Token? {
        if pendingEnd {
            pendingEnd = false
            return .endElement(name: closeElement())
        }
        while true {
            topUpWindow()
            let saved = checkpoint
            ranOutOfWindow = false
            do {
                if let token = try step() { return token }
            } catch {
                // Streamed, a fault may only be the window's end: read the step again with more.
                guard let window, !inputComplete, limit == input.count else { throw error }
                guard window.count < windowLimit else {
                    guard ranOutOfWindow else { throw error }
                    restore(saved)
                    throw self.error("a single tag, comment, CDATA section or DOCTYPE longer than \(windowLimit >> 10) KiB, more than this reader holds at once")
                }
                restore(saved)
                slideWindow(capacity: min(windowLimit, window.count * 2))
            }
        }
    }

    /// Reads one piece of the document: a token, or nil for markup that is skipped.
    private mutating func step() throws(XMLSyntaxError) -> Token?? {
        if atStart {
            atStart = false
            if startsWith("<?xml", at: position), position + 5 < limit, isWhitespace(input[position + 5]) {
                isBlank = false
                try readDeclaration()
                return nil
            }
        }
        guard position < limit else { return .some(try endOfInput()) }
        if input[position] != UInt8(ascii: "<") {
            if phase == .content { return try readText() }
            try skipWhitespaceOutsideRoot()
            return nil
        }
        isBlank = false
        guard position + 1 < limit else { throw endError("an unterminated tag ('<' at the end)") }
        switch input[position + 1] {
        case UInt8(ascii: "/"):
            return .endElement(name: try readEndTag())
        case UInt8(ascii: "?"):
            try skipProcessingInstruction()
        case UInt8(ascii: "!"):
            if startsWith("<!--", at: position) {
                try skipComment()
            } else if startsWith("<![CDATA[", at: position) {
                guard phase == .content else { throw error("a CDATA section outside the root element") }
                if let text = try readCDATA() { return .text(text) }
            } else if startsWith("<!DOCTYPE", at: position) {
                try skipDoctype()
            } else {
                throw error("'<!' that starts no comment, CDATA section or DOCTYPE")
            }
        default:
            return .startElement(name: try readStartTag())
        }
        return nil
    }

    /// The line (from 1) of the byte at `offset`.
    mutating func line(at offset: Int) -> Int {
        let target = min(max(offset, 0), input.count)
        if target >= lineOffset {
            var count = 0
            for index in lineOffset..<target where input[index] == 0x0A { count += 1 }
            lineAtOffset += count
        } else {
            var count = 0
            for index in target..<lineOffset where input[index] == 0x0A { count += 1 }
            lineAtOffset -= count
        }
        lineOffset = target
        return lineAtOffset
    }

    /// The line of the scanner's position: for a start tag just read, the line of its `>`.
    mutating func currentLine() -> Int {
        line(at: max(position - 1, 0))
    }

    /// The decoded value of the latest start tag's attribute with the qualified name `name`.
    func value(of name: StaticString) -> String? {
        let wanted = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        guard let attribute = attributes.first(where: { $0.name.elementsEqual(wanted) }) else { return nil }
        return decodedValue(attribute)
    }

    /// The decoded text of `attribute`'s value.
    func decodedValue(_ attribute: Attribute) -> String {
        guard attribute.needsDecoding else { return String(decoding: attribute.rawValue, as: UTF8.self) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(attribute.rawValue.count)
        // The value was checked while its tag was read, so decoding cannot fail here.
        _ = Self.decode(attribute.rawValue, attribute: true, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `name` without its namespace prefix: the bytes after the last `:`.
    static func localName(_ name: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        guard let colon = name.lastIndex(of: UInt8(ascii: ":")) else { return name }
        return UnsafeBufferPointer(rebasing: name[(colon + 1)...])
    }

    // MARK: Elements

    private mutating func readStartTag() throws(XMLSyntaxError) -> UnsafeBufferPointer<UInt8> {
        let tagStart = position
        if phase == .epilog { throw error("a second element after the root element") }
        position += 1
        guard let name = readName() else {
            throw error("'<' not followed by an element name")
        }
        attributes.removeAll(keepingCapacity: true)
        while true {
            let hadSpace = skipWhitespace()
            guard position < limit else {
                throw endError("an unterminated start tag <\(Self.text(name))>", from: tagStart)
            }
            let byte = input[position]
            if byte == UInt8(ascii: ">") {
                position += 1
                break
            }
            if byte == UInt8(ascii: "/") {
                guard position + 1 < limit else {
                    throw endError("an unterminated start tag <\(Self.text(name))>", from: tagStart)
                }
                guard input[position + 1] == UInt8(ascii: ">") else {
                    throw error("'/' not followed by '>' in the start tag <\(Self.text(name))>")
                }
                position += 2
                pendingEnd = true
                break
            }
            guard hadSpace else {
                throw error("bad attribute syntax in <\(Self.text(name))>: attributes must be separated by white space")
            }
            try readAttribute(of: name, tagStart: tagStart)
        }
        if openNameEnds.count >= maximumDepth {
            throw error("elements nested deeper than \(maximumDepth)")
        }
        openNames.append(contentsOf: name)
        openNameEnds.append(openNames.count)
        phase = .content
        return name
    }

    private mutating func readAttribute(of element: UnsafeBufferPointer<UInt8>, tagStart: Int) throws(XMLSyntaxError) {
        guard let name = readName() else {
            throw error("bad attribute syntax in <\(Self.text(element))>: expected an attribute name, '>' or '/>'")
        }
        skipWhitespace()
        guard position < limit else { throw endError("an unterminated start tag <\(Self.text(element))>", from: tagStart) }
        guard input[position] == UInt8(ascii: "=") else {
            throw error("bad attribute syntax: attribute '\(Self.text(name))' has no '=' and value")
        }
        position += 1
        skipWhitespace()
        guard position < limit else { throw endError("an unterminated start tag <\(Self.text(element))>", from: tagStart) }
        let quote = input[position]
        guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
            throw error("bad attribute syntax: the value of '\(Self.text(name))' is not in quotes")
        }
        let valueStart = position + 1
        var index = valueStart
        var needsDecoding = false
        while true {
            guard index < limit else {
                throw endError("an unterminated value of attribute '\(Self.text(name))'", from: position)
            }
            let byte = input[index]
            if byte == quote { break }
            switch byte {
            case UInt8(ascii: "<"):
                position = index
                throw error("'<' in the value of attribute '\(Self.text(name))'")
            case UInt8(ascii: "&"), 0x09, 0x0A, 0x0D:
                needsDecoding = true
            default:
                break
            }
            index += 1
        }
        let value = UnsafeBufferPointer(rebasing: input[valueStart..<index])
        if needsDecoding {
            scratch.removeAll(keepingCapacity: true)
            if let fault = Self.decode(value, attribute: true, into: &scratch) {
                position = valueStart + fault.offset
                throw error(fault.reason)
            }
        }
        position = index + 1
        if attributes.contains(where: { $0.name.elementsEqual(name) }) {
            throw error("duplicate attribute '\(Self.text(name))'")
        }
        attributes.append(Attribute(name: name, rawValue: value, needsDecoding: needsDecoding))
    }

    private mutating func readEndTag() throws(XMLSyntaxError) -> UnsafeBufferPointer<UInt8> {
        let tagStart = position
        position += 2
        guard let name = readName() else { throw error("'</' not followed by an element name") }
        skipWhitespace()
        guard position < limit else { throw endError("an unterminated end tag </\(Self.text(name))>", from: tagStart) }
        guard input[position] == UInt8(ascii: ">") else {
            throw error("an end tag </\(Self.text(name))> with more than a name")
        }
        guard let open = lastOpenName else {
            position = tagStart
            throw error("an end tag </\(Self.text(name))> outside the root element")
        }
        guard open.elementsEqual(name) else {
            position = tagStart
            throw error("mismatched end tag: expected </\(Self.text(open))>, found </\(Self.text(name))>")
        }
        position += 1
        return closeElement()
    }

    /// The name of the innermost open element.
    private var lastOpenName: ArraySlice<UInt8>? {
        guard let end = openNameEnds.last else { return nil }
        return openNames[(openNameEnds.dropLast().last ?? 0)..<end]
    }

    private mutating func closeElement() -> UnsafeBufferPointer<UInt8> {
        let name = stash(lastOpenName ?? [])
        openNames.removeSubrange((openNameEnds.dropLast().last ?? 0)...)
        openNameEnds.removeLast()
        if openNameEnds.isEmpty { phase = .epilog }
        return name
    }

    /// An XML name at the position (advancing past it), or nil when none starts there.
    private mutating func readName() -> UnsafeBufferPointer<UInt8>? {
        let start = position
        guard position < limit, isNameStart(input[position]) else { return nil }
        position += 1
        while position < limit, isNameByte(input[position]) { position += 1 }
        return UnsafeBufferPointer(rebasing: input[start..<position])
    }

    // MARK: Text

    private mutating func readText() throws(XMLSyntaxError) -> Token {
        let start = position
        var index = position
        var needsDecoding = false
        while index < limit {
            let byte = input[index]
            if byte == UInt8(ascii: "<") { break }
            if byte == UInt8(ascii: "&") || byte == 0x0D {
                needsDecoding = true
            } else if byte == UInt8(ascii: ">"), index - start >= 2,
                      input[index - 1] == UInt8(ascii: "]"), input[index - 2] == UInt8(ascii: "]") {
                position = index - 2
                throw error("']]>' in text outside a CDATA section")
            }
            index += 1
        }
        if index == input.count, !inputComplete {
            // The text may go on past the window: keep back what the next bytes could complete
            // (a reference, CR LF, "]]>"), and read the rest as the next run.
            if let ampersand = input[max(start, index - 40)..<index].lastIndex(of: UInt8(ascii: "&")),
               !input[ampersand..<index].contains(UInt8(ascii: ";")) {
                index = ampersand
            }
            while index > start, input[index - 1] == UInt8(ascii: "]") || input[index - 1] == 0x0D { index -= 1 }
            if index == start {
                ranOutOfWindow = true
                throw error("text that runs past the window")
            }
        }
        let raw = UnsafeBufferPointer(rebasing: input[start..<index])
        position = index
        guard needsDecoding else { return .text(raw) }
        scratch.removeAll(keepingCapacity: true)
        if let fault = Self.decode(raw, attribute: false, into: &scratch) {
            position = start + fault.offset
            throw error(fault.reason)
        }
        return .text(stash(scratch))
    }

    private mutating func readCDATA() throws(XMLSyntaxError) -> UnsafeBufferPointer<UInt8>? {
        let start = position + 9
        guard let end = find("]]>", from: start) else {
            throw endError("an unterminated CDATA section", from: position)
        }
        position = end + 3
        guard end > start else { return nil }
        let raw = UnsafeBufferPointer(rebasing: input[start..<end])
        guard raw.contains(0x0D) else { return raw }
        scratch.removeAll(keepingCapacity: true)
        Self.normaliseLineEnds(raw, into: &scratch)
        return stash(scratch)
    }

    /// Copies `bytes` into the decoded-text buffer, which stays valid until the next token.
    private mutating func stash(_ bytes: some Collection<UInt8>) -> UnsafeBufferPointer<UInt8> {
        if decodedText.count < bytes.count {
            decodedText.deallocate()
            decodedText = .allocate(capacity: max(bytes.count, decodedText.count * 2))
        }
        _ = decodedText.initialize(fromContentsOf: bytes)
        return UnsafeBufferPointer(rebasing: decodedText[..<bytes.count])
    }

    private static func normaliseLineEnds(_ raw: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        var index = 0
        while index < raw.count {
            let byte = raw[index]
            if byte == 0x0D {
                out.append(0x0A)
                if index + 1 < raw.count, raw[index + 1] == 0x0A { index += 1 }
            } else {
                out.append(byte)
            }
            index += 1
        }
    }

    /// Decodes references and normalises white space in `raw` (text or an attribute value),
    /// appending to `out`; returns the offset and reason of the first malformed reference.
    static func decode(
        _ raw: UnsafeBufferPointer<UInt8>,
        attribute: Bool,
        into out: inout [UInt8]
    ) -> (offset: Int, reason: String)? {
        var index = 0
        while index < raw.count {
            let byte = raw[index]
            switch byte {
            case 0x0D:
                out.append(attribute ? 0x20 : 0x0A)
                if index + 1 < raw.count, raw[index + 1] == 0x0A { index += 1 }
                index += 1
            case 0x09, 0x0A:
                out.append(attribute ? 0x20 : byte)
                index += 1
            case UInt8(ascii: "&"):
                guard let semicolon = raw[(index + 1)...].prefix(40).firstIndex(of: UInt8(ascii: ";")) else {
                    return (index, "'&' not followed by an entity or character reference ending in ';' (write '&amp;')")
                }
                let reference = UnsafeBufferPointer(rebasing: raw[(index + 1)..<semicolon])
                if let scalar = characterReference(reference) {
                    out.append(contentsOf: String(Character(scalar)).utf8)
                } else if let byte = predefinedEntity(reference) {
                    out.append(byte)
                } else if reference.first == UInt8(ascii: "#") {
                    return (index, "a character reference '&\(text(reference));' to no allowed character")
                } else {
                    return (index, "an unknown entity '&\(text(reference));' (only &lt; &gt; &amp; &apos; &quot; and character references are read; no DTD entity is expanded)")
                }
                index = semicolon + 1
            default:
                out.append(byte)
                index += 1
            }
        }
        return nil
    }

    private static func predefinedEntity(_ name: UnsafeBufferPointer<UInt8>) -> UInt8? {
        switch String(decoding: name, as: UTF8.self) {
        case "lt": UInt8(ascii: "<")
        case "gt": UInt8(ascii: ">")
        case "amp": UInt8(ascii: "&")
        case "apos": UInt8(ascii: "'")
        case "quot": UInt8(ascii: "\"")
        default: nil
        }
    }

    /// The character of `#123` or `#x7B`, when it is one XML allows.
    private static func characterReference(_ reference: UnsafeBufferPointer<UInt8>) -> Unicode.Scalar? {
        guard reference.count >= 2, reference[0] == UInt8(ascii: "#") else { return nil }
        let hex = reference[1] == UInt8(ascii: "x")
        let digits = reference[(hex ? 2 : 1)...]
        guard !digits.isEmpty, digits.count <= 8 else { return nil }
        var value: UInt32 = 0
        for byte in digits {
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f") where hex: digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F") where hex: digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: return nil
            }
            value = value * (hex ? 16 : 10) + digit
        }
        switch value {
        case 0x09, 0x0A, 0x0D, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: return Unicode.Scalar(value)
        default: return nil
        }
    }

    // MARK: Markup that is skipped

    private mutating func skipComment() throws(XMLSyntaxError) {
        let start = position
        guard let dashes = find("--", from: position + 4) else {
            throw endError("an unterminated comment", from: start)
        }
        guard dashes + 2 < limit else { throw endError("an unterminated comment", from: start) }
        guard input[dashes + 2] == UInt8(ascii: ">") else {
            position = dashes
            throw error("'--' inside a comment")
        }
        position = dashes + 3
    }

    private mutating func skipProcessingInstruction() throws(XMLSyntaxError) {
        let start = position
        position += 2
        guard let target = readName() else { throw error("'<?' not followed by a processing-instruction target") }
        if target.count == 3, String(decoding: target, as: UTF8.self).lowercased() == "xml" {
            position = start
            throw error("an XML declaration that is not at the very start of the document")
        }
        guard position < limit else { throw endError("an unterminated processing instruction", from: start) }
        if !startsWith("?>", at: position), !isWhitespace(input[position]) {
            throw error("a processing-instruction target followed by neither white space nor '?>'")
        }
        guard let end = find("?>", from: position) else {
            throw endError("an unterminated processing instruction", from: start)
        }
        position = end + 2
    }

    private mutating func skipDoctype() throws(XMLSyntaxError) {
        let start = position
        guard phase == .prolog, openNameEnds.isEmpty, !sawDoctype else {
            throw error(phase == .prolog ? "a second DOCTYPE" : "a DOCTYPE after the root element started")
        }
        sawDoctype = true
        position += 9
        var inSubset = false
        while position < limit {
            let byte = input[position]
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                guard let close = find(byte, from: position + 1) else {
                    throw endError("an unterminated DOCTYPE", from: start)
                }
                position = close + 1
            case UInt8(ascii: "[") where !inSubset:
                inSubset = true
                position += 1
            case UInt8(ascii: "]") where inSubset:
                inSubset = false
                position += 1
            case UInt8(ascii: "<") where inSubset:
                if startsWith("<!--", at: position) {
                    try skipComment()
                } else if startsWith("<?", at: position) {
                    try skipProcessingInstruction()
                } else {
                    position += 1
                }
            case UInt8(ascii: ">") where !inSubset:
                position += 1
                return
            default:
                position += 1
            }
        }
        throw endError("an unterminated DOCTYPE", from: start)
    }

    private var sawDoctype = false

    /// Reads `<?xml version="1.x" encoding="..." standalone="..."?>` at the start.
    private mutating func readDeclaration() throws(XMLSyntaxError) {
        let start = position
        position += 5
        var seen: [String] = []
        while true {
            let hadSpace = skipWhitespace()
            guard position < limit else { throw endError("an unterminated XML declaration", from: start) }
            if startsWith("?>", at: position) {
                position += 2
                break
            }
            guard hadSpace, let nameBytes = readName() else {
                throw error("a malformed XML declaration (expected version, encoding, standalone or '?>')")
            }
            let name = Self.text(nameBytes)
            skipWhitespace()
            guard position < limit, input[position] == UInt8(ascii: "=") else {
                throw error("a malformed XML declaration: '\(name)' has no '=' and value")
            }
            position += 1
            skipWhitespace()
            guard position < limit, input[position] == UInt8(ascii: "\"") || input[position] == UInt8(ascii: "'"),
                  let close = find(input[position], from: position + 1) else {
                throw error("a malformed XML declaration: the value of '\(name)' is not in quotes")
            }
            let value = Self.text(UnsafeBufferPointer(rebasing: input[(position + 1)..<close]))
            let order = ["version", "encoding", "standalone"]
            guard let rank = order.firstIndex(of: name), seen.allSatisfy({ (order.firstIndex(of: $0) ?? order.count) < rank }),
                  rank == 0 || seen.first == "version" else {
                throw error("a malformed XML declaration: unexpected '\(name)'")
            }
            switch name {
            case "version":
                guard value.hasPrefix("1."), value.count > 2, value.dropFirst(2).allSatisfy(\.isASCIIDigitForXML) else {
                    throw error("an unsupported XML version '\(value)'")
                }
            case "encoding":
                guard Self.isSupportedEncoding(value, utf16: allowsUTF16Declaration) else {
                    throw error("an unsupported encoding '\(value)' (this reader reads UTF-8, UTF-16 with a byte-order mark and ASCII-compatible encodings)")
                }
            default:
                guard value == "yes" || value == "no" else {
                    throw error("a malformed XML declaration: standalone must be 'yes' or 'no'")
                }
            }
            seen.append(name)
            position = close + 1
        }
        guard seen.first == "version" else { throw error("an XML declaration without a version") }
    }

    private static func isSupportedEncoding(_ name: String, utf16: Bool) -> Bool {
        let name = name.lowercased()
        if utf16 { return name == "utf-16" || name == "utf-16le" || name == "utf-16be" || name == "utf-8" }
        if ["utf-8", "utf8", "us-ascii", "ascii", "latin1", "iso-latin-1"].contains(name) { return true }
        for prefix in ["iso-8859-", "iso8859-", "windows-125", "cp125"] where name.hasPrefix(prefix) {
            let rest = name.dropFirst(prefix.count)
            return !rest.isEmpty && rest.count <= 2 && rest.allSatisfy(\.isASCIIDigitForXML)
        }
        return false
    }

    private mutating func skipWhitespaceOutsideRoot() throws(XMLSyntaxError) {
        skipWhitespace()
        guard position < limit, input[position] != UInt8(ascii: "<") else { return }
        isBlank = false
        throw error(phase == .prolog ? "text before the root element" : "text after the root element")
    }

    // MARK: Ends and errors

    private mutating func endOfInput() throws(XMLSyntaxError) -> Token? {
        if limit < input.count { throw controlCharacterError() }
        if !inputComplete {
            ranOutOfWindow = true
            throw error("the end of the window")
        }
        switch phase {
        case .epilog:
            return nil
        case .prolog:
            throw error("the document has no root element")
        case .content:
            let open = lastOpenName.map(Self.text) ?? ""
            let more = openNameEnds.count - 1
            throw error("the document ends before its closing tags (<\(open)>\(more > 0 ? " and \(more) more" : "") still open)")
        }
    }

    private mutating func error(_ reason: String) -> XMLSyntaxError {
        XMLSyntaxError(line: line(at: position), reason: reason)
    }

    /// The error for running into the limit while inside a construct that began at `start`: a
    /// forbidden character when the limit is one, else the end of input.
    private mutating func endError(_ what: String, from start: Int? = nil) -> XMLSyntaxError {
        if limit < input.count { return controlCharacterError() }
        if !inputComplete { ranOutOfWindow = true }
        position = input.count
        let began = start.map { " (it begins on line \(line(at: $0)))" } ?? ""
        return XMLSyntaxError(line: line(at: input.count), reason: "the document ends inside \(what)\(began)")
    }

    private mutating func controlCharacterError() -> XMLSyntaxError {
        isBlank = false
        position = limit
        let hex = String(input[limit], radix: 16, uppercase: true)
        return error("the control character U+\(hex.count < 2 ? "000" : "00")\(hex), which XML does not allow")
    }

    // MARK: Bytes

    @discardableResult
    private mutating func skipWhitespace() -> Bool {
        let start = position
        while position < limit, isWhitespace(input[position]) { position += 1 }
        return position > start
    }

    private func startsWith(_ literal: StaticString, at offset: Int) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard offset + count <= limit else { return false }
        let bytes = literal.utf8Start
        for index in 0..<count where input[offset + index] != bytes[index] { return false }
        return true
    }

    private func find(_ literal: StaticString, from offset: Int) -> Int? {
        let first = literal.utf8Start[0]
        var index = offset
        while let candidate = find(first, from: index) {
            if startsWith(literal, at: candidate) { return candidate }
            index = candidate + 1
        }
        return nil
    }

    private func find(_ byte: UInt8, from offset: Int) -> Int? {
        var index = offset
        while index < limit {
            if input[index] == byte { return index }
            index += 1
        }
        return nil
    }

    private static func text(_ bytes: some Collection<UInt8>) -> String {
        String(decoding: bytes.prefix(60), as: UTF8.self)
    }

}

/// Whether `byte` may start an XML name: an ASCII letter, `_`, `:`, or any byte from 0x80 (the
/// scanner does not decode UTF-8, so every non-ASCII character is allowed).
@inline(__always)
private func isNameStart(_ byte: UInt8) -> Bool {
    let lower = byte | 0x20
    return (lower >= 0x61 && lower <= 0x7A) || byte >= 0x80 || byte == 0x5F || byte == 0x3A
}

/// Whether `byte` may continue an XML name: one that may start it, a digit, `-` or `.`.
@inline(__always)
private func isNameByte(_ byte: UInt8) -> Bool {
    isNameStart(byte) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D || byte == 0x2E
}

@inline(__always)
private func isWhitespace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D
}

private extension Character {
    var isASCIIDigitForXML: Bool { ("0"..."9").contains(self) }
}

/// UTF-16 read through a refill and handed out as UTF-8, piece by piece what
/// ``XMLScanner/utf8(fromUTF16WithBOM:)`` makes of the whole (a surrogate pair split between two
/// reads is kept together; an odd last byte becomes an invalid byte).
private struct UTF16Stream {
    let bigEndian: Bool
    /// Bytes read and not yet converted: an odd byte, or a high surrogate waiting for its pair.
    var carry: [UInt8]
    /// Whether the refill has nothing more.
    var sourceEnded: Bool
    private var output: [UInt8] = []
    private var handedOut = 0

    init(bigEndian: Bool, carry: [UInt8], sourceEnded: Bool) {
        self.bigEndian = bigEndian
        self.carry = carry
        self.sourceEnded = sourceEnded
    }

    /// Fills `buffer` with converted bytes read through `refill`; 0 at the end.
    mutating func fill(_ buffer: UnsafeMutableRawBufferPointer, from refill: XMLScanner.Refill) -> Int {
        var written = 0
        while written < buffer.count {
            if handedOut == output.count {
                guard convertMore(refill) else { break }
                continue
            }
            let count = min(buffer.count - written, output.count - handedOut)
            output.withUnsafeBytes { converted in
                UnsafeMutableRawBufferPointer(rebasing: buffer[written..<(written + count)])
                    .copyMemory(from: UnsafeRawBufferPointer(rebasing: converted[handedOut..<(handedOut + count)]))
            }
            written += count
            handedOut += count
        }
        return written
    }

    /// Reads and converts the next piece; false when nothing is left.
    private mutating func convertMore(_ refill: XMLScanner.Refill) -> Bool {
        if sourceEnded, carry.isEmpty { return false }
        var raw = carry
        if !sourceEnded {
            var chunk = [UInt8](repeating: 0, count: 32 << 10)
            let count = chunk.withUnsafeMutableBytes { refill($0) }
            if count > 0 { raw += chunk[..<count] } else { sourceEnded = true }
        }
        var units: [UInt16] = []
        units.reserveCapacity(raw.count / 2)
        var index = 0
        while index + 1 < raw.count {
            let (high, low) = bigEndian ? (raw[index], raw[index + 1]) : (raw[index + 1], raw[index])
            units.append(UInt16(high) << 8 | UInt16(low))
            index += 2
        }
        carry = Array(raw[index...])
        if !sourceEnded, let last = units.last, last & 0xFC00 == 0xD800 {
            units.removeLast()
            carry = Array(raw[(index - 2)..<index]) + carry
        }
        output = Array(String(decoding: units, as: UTF16.self).utf8)
        if sourceEnded, !carry.isEmpty {
            output.append(0xFF)
            carry = []
        }
        handedOut = 0
        return !(sourceEnded && output.isEmpty)
    }
}

/// A well-formedness error: where (line, from 1) and why the document stops being XML.
struct XMLSyntaxError: Error, Equatable, CustomStringConvertible {
    /// The line of the fault, counted in line feeds from 1.
    var line: Int
    /// What is wrong, in a sentence fragment ("mismatched end tag: ...").
    var reason: String

    var description: String { "line \(line): \(reason)" }
}

/// A strict, allocation-light reader for the flat JSON objects OwnTracks sends.
///
/// It parses one top-level object per RFC 8259 (strings with escapes and UTF-8 validation,
/// numbers by the JSON grammar, `true`/`false`/`null`, nested objects and arrays checked and
/// skipped up to a depth limit), calling back with each top-level key and scalar value. Anything
/// else (garbage, trailing bytes, `NaN`, control characters in strings, unterminated input) is
/// a ``FlatJSON/Error``. It exists because Foundation's `JSONDecoder` made decoding the ingest
/// bottleneck (BENCHMARKS.md, `## Subscriber`).
struct FlatJSON {
    /// A top-level value.
    enum Value {
        case string(String)
        case number(Double)
        case bool(Bool)
        case null
        /// A top-level array whose elements are all strings (OwnTracks `inregions`), at most 64.
        case strings([String])
        /// An object or any other array (validated, not kept).
        case nested
    }

    /// The input is not one well-formed JSON object.
    struct Error: Swift.Error {}

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private static let maxDepth = 32

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Parses `input` and calls `visit` for each top-level member, in order, with the key's
    /// bytes (escapes already resolved; valid only during the call) and its value.
    static func parseObject(_ input: [UInt8], _ visit: (UnsafeBufferPointer<UInt8>, Value) throws -> Void) throws {
        try input.withUnsafeBufferPointer { try parseObject($0, visit) }
    }

    /// Parses the bytes of `buffer`, as the array form above does.
    static func parseObject(_ buffer: UnsafeBufferPointer<UInt8>, _ visit: (UnsafeBufferPointer<UInt8>, Value) throws -> Void) throws {
        var reader = FlatJSON(buffer)
        reader.skipWhitespace()
        try reader.expect(UInt8(ascii: "{"))
        reader.skipWhitespace()
        if reader.peek() == UInt8(ascii: "}") {
            reader.index += 1
        } else {
            while true {
                reader.skipWhitespace()
                let key = try reader.readStringBytes()
                reader.skipWhitespace()
                try reader.expect(UInt8(ascii: ":"))
                reader.skipWhitespace()
                let value = try reader.readValue(depth: 1)
                if key.escaped {
                    let unescaped = Array(try reader.unescape(key.raw).utf8)
                    try unescaped.withUnsafeBufferPointer { try visit($0, value) }
                } else {
                    // Value strings are validated as they become `String`s; a key is checked here.
                    if key.raw.contains(where: { $0 >= 0x80 }), String(validating: key.raw, as: UTF8.self) == nil { throw Error() }
                    try visit(key.raw, value)
                }
                reader.skipWhitespace()
                let separator = try reader.next()
                if separator == UInt8(ascii: "}") { break }
                guard separator == UInt8(ascii: ",") else { throw Error() }
            }
        }
        reader.skipWhitespace()
        guard reader.index == buffer.count else { throw Error() }
    }

    // MARK: Values

    private mutating func readValue(depth: Int) throws -> Value {
        guard let byte = peek() else { throw Error() }
        switch byte {
        case UInt8(ascii: "\""): return .string(try readString())
        case UInt8(ascii: "[") where depth == 1:
            let start = index
            if let strings = try? readStringArray() { return .strings(strings) }
            index = start
            try skipNested(depth: depth)
            return .nested
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            try skipNested(depth: depth)
            return .nested
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        default: return .number(try readNumber())
        }
    }

    /// Reads `[` string, ... `]` (at most 64 strings); throws on anything else, and the caller
    /// rewinds and skips the array as an ordinary nested value.
    private mutating func readStringArray() throws -> [String] {
        try expect(UInt8(ascii: "["))
        var strings: [String] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            index += 1
            return strings
        }
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\""), strings.count < 64 else { throw Error() }
            strings.append(try readString())
            skipWhitespace()
            let separator = try next()
            if separator == UInt8(ascii: "]") { return strings }
            guard separator == UInt8(ascii: ",") else { throw Error() }
        }
    }

    private mutating func skipNested(depth: Int) throws {
        guard depth < Self.maxDepth else { throw Error() }
        let open = try next()
        let close = open == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
        skipWhitespace()
        if peek() == close {
            index += 1
            return
        }
        while true {
            skipWhitespace()
            if open == UInt8(ascii: "{") {
                _ = try readString()
                skipWhitespace()
                try expect(UInt8(ascii: ":"))
                skipWhitespace()
            }
            if let byte = peek(), byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                try skipNested(depth: depth + 1)
            } else {
                _ = try readValue(depth: depth + 1)
            }
            skipWhitespace()
            let separator = try next()
            if separator == close { return }
            guard separator == UInt8(ascii: ",") else { throw Error() }
        }
    }

    private mutating func readNumber() throws -> Double {
        let start = index
        let negative = peek() == UInt8(ascii: "-")
        if negative { index += 1 }
        guard let first = peek(), isDigit(first) else { throw Error() }
        // Clinger's fast path: while the digits fit in 53 bits and the decimal exponent is within
        // +-22, mantissa and power of ten are both exact doubles, so one multiplication or
        // division rounds correctly. Anything else goes to the standard library's parser.
        var mantissa: UInt64 = 0
        var exact = true
        var exponent = 0
        func accumulate(_ digit: UInt8) {
            guard exact else { return }
            let (times10, overflow1) = mantissa.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(digit - 48))
            if overflow1 || overflow2 { exact = false } else { mantissa = sum }
        }
        index += 1
        accumulate(first)
        if first != UInt8(ascii: "0") {
            while let byte = peek(), isDigit(byte) { accumulate(byte); index += 1 }
        }
        if peek() == UInt8(ascii: ".") {
            index += 1
            guard let digit = peek(), isDigit(digit) else { throw Error() }
            while let byte = peek(), isDigit(byte) { accumulate(byte); exponent -= 1; index += 1 }
        }
        if let e = peek(), e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            index += 1
            var exponentSign = 1
            if let sign = peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                if sign == UInt8(ascii: "-") { exponentSign = -1 }
                index += 1
            }
            guard let digit = peek(), isDigit(digit) else { throw Error() }
            var written = 0
            while let byte = peek(), isDigit(byte) {
                if written < 10_000 { written = written * 10 + Int(byte - 48) }
                index += 1
            }
            exponent += exponentSign * written
        }
        if exact, mantissa <= 1 << 53, (-22...22).contains(exponent) {
            let magnitude = exponent < 0
                ? Double(mantissa) / Self.powersOfTen[-exponent]
                : Double(mantissa) * Self.powersOfTen[exponent]
            return negative ? -magnitude : magnitude
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text) else { throw Error() }
        return value
    }

    /// 10^0 through 10^22, every one exactly representable as a `Double`. Written out as
    /// literals, so the compiler lays the array out statically: computed at first use, every read
    /// went through a `swift_once` check (1 % of a profiled ingest, 2026-11-28).
    private static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
        1e21, 1e22,
    ]

    private mutating func readString() throws -> String {
        let token = try readStringBytes()
        guard token.escaped else {
            guard let string = Self.string(validating: token.raw) else { throw Error() }
            return string
        }
        return try unescape(token.raw)
    }

    /// `raw` as a `String`, or `nil` when it is not valid UTF-8. ASCII, nearly every value, skips
    /// the generic validating initializer (3-5 % of a profiled ingest, with its metadata lookups).
    private static func string(validating raw: UnsafeBufferPointer<UInt8>) -> String? {
        if !raw.contains(where: { $0 >= 0x80 }) { return String(decoding: raw, as: UTF8.self) }
        return String(validating: raw, as: UTF8.self)
    }

    /// Reads a string token: its raw bytes between the quotes and whether it contains escapes.
    private mutating func readStringBytes() throws -> (raw: UnsafeBufferPointer<UInt8>, escaped: Bool) {
        try expect(UInt8(ascii: "\""))
        let start = index
        var escaped = false
        while true {
            let byte = try next()
            if byte == UInt8(ascii: "\"") { break }
            if byte < 0x20 { throw Error() }
            if byte == UInt8(ascii: "\\") {
                escaped = true
                _ = try next()
            }
        }
        return (UnsafeBufferPointer(rebasing: bytes[start..<(index - 1)]), escaped)
    }

    private func unescape(_ raw: UnsafeBufferPointer<UInt8>) throws -> String {
        var output: [UInt8] = []
        output.reserveCapacity(raw.count)
        var i = 0
        func hex4() throws -> UInt32 {
            guard i + 4 < raw.count else { throw Error() }
            var value: UInt32 = 0
            for k in 1...4 {
                let c = raw[i + k]
                let digit: UInt32
                switch c {
                case 48...57: digit = UInt32(c - 48)
                case 65...70: digit = UInt32(c - 55)
                case 97...102: digit = UInt32(c - 87)
                default: throw Error()
                }
                value = value << 4 | digit
            }
            i += 4
            return value
        }
        while i < raw.count {
            let byte = raw[i]
            guard byte == UInt8(ascii: "\\") else {
                output.append(byte)
                i += 1
                continue
            }
            i += 1
            switch raw[i] {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(raw[i])
            case UInt8(ascii: "b"): output.append(0x08)
            case UInt8(ascii: "f"): output.append(0x0C)
            case UInt8(ascii: "n"): output.append(0x0A)
            case UInt8(ascii: "r"): output.append(0x0D)
            case UInt8(ascii: "t"): output.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800...0xDBFF).contains(scalar) {
                    guard i + 2 < raw.count, raw[i + 1] == UInt8(ascii: "\\"), raw[i + 2] == UInt8(ascii: "u") else { throw Error() }
                    i += 2
                    let low = try hex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw Error() }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let unicode = Unicode.Scalar(scalar) else { throw Error() }
                output.append(contentsOf: Array(String(Character(unicode)).utf8))
            default: throw Error()
            }
            i += 1
        }
        guard let string = String(validating: output, as: UTF8.self) else { throw Error() }
        return string
    }

    // MARK: Bytes

    private func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func next() throws -> UInt8 {
        guard index < bytes.count else { throw Error() }
        defer { index += 1 }
        return bytes[index]
    }

    private mutating func expect(_ byte: UInt8) throws {
        guard try next() == byte else { throw Error() }
    }

    private mutating func literal(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw Error() }
        for k in 0..<count where bytes[index + k] != word.utf8Start[k] { throw Error() }
        index += count
    }

    private mutating func skipWhitespace() {
        while let byte = peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }
}

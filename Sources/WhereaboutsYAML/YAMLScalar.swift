/// A YAML scalar as written, and what its text stands for.
///
/// The typed readings (``isNull``, ``bool``, ``int``, ``double``) follow the YAML 1.2 core schema,
/// and apply to plain scalars only (or to a scalar tagged `!!null`, `!!bool`, `!!int`, `!!float`):
/// a quoted scalar is always a string, so `"true"` and `'5'` are text. The schema's forms:
/// null `~`, `null`, `Null`, `NULL` or nothing; booleans `true`/`True`/`TRUE` and
/// `false`/`False`/`FALSE`; integers `[-+]?[0-9]+`, `0o[0-7]+`, `0x[0-9a-fA-F]+`; floats
/// `[-+]?(.[0-9]+|[0-9]+(.[0-9]*)?)([eE][-+]?[0-9]+)?`, `[-+]?.inf` and `.nan` (any of the three
/// cases the schema lists). YAML 1.1's `yes`/`no`/`on`/`off`, sexagesimal numbers and `_` digit
/// separators are not numbers or booleans here; a reader that accepts `yes` says so itself.
package struct YAMLScalar: Sendable, Hashable {
    /// How the scalar is written.
    package enum Style: Sendable, Hashable {
        /// Unquoted: `name`.
        case plain
        /// `'name'`.
        case singleQuoted
        /// `"name"`.
        case doubleQuoted
        /// A `|` block.
        case literal
        /// A `>` block.
        case folded
    }

    /// The text after unquoting and unescaping.
    package var text: String
    /// How the scalar is written.
    package var style: Style
    /// The explicit tag (`tag:yaml.org,2002:str` for `!!str`, `!` for a non-specific tag), or `nil`.
    package var tag: String?
    /// Where the scalar starts.
    package var mark: YAMLMark

    /// Creates a scalar.
    package init(text: String, style: Style = .plain, tag: String? = nil, mark: YAMLMark) {
        self.text = text
        self.style = style
        self.tag = tag
        self.mark = mark
    }

    static let coreTag = "tag:yaml.org,2002:"

    /// Whether the schema's reading of kind `kind` (`null`, `bool`, `int`, `float`) applies: an
    /// untagged plain scalar, or one tagged with that kind.
    private func reads(as kind: String) -> Bool {
        guard let tag else { return style == .plain }
        return tag == Self.coreTag + kind
    }

    /// Whether the scalar stands for null: plain and empty, `~`, `null`, `Null` or `NULL`.
    package var isNull: Bool {
        reads(as: "null") && ["", "~", "null", "Null", "NULL"].contains(text)
    }

    /// The boolean a plain `true`/`True`/`TRUE`/`false`/`False`/`FALSE` stands for.
    package var bool: Bool? {
        guard reads(as: "bool") else { return nil }
        switch text {
        case "true", "True", "TRUE": return true
        case "false", "False", "FALSE": return false
        default: return nil
        }
    }

    /// The integer a plain decimal (`-12`), octal (`0o17`) or hexadecimal (`0x1F`) scalar stands
    /// for, when it fits in `Int`.
    package var int: Int? {
        guard reads(as: "int") else { return nil }
        return Self.integer(text)
    }

    /// The number a plain integer or float scalar stands for, including `.inf`, `-.inf` and
    /// `.nan` (callers that need a finite number check `isFinite`).
    package var double: Double? {
        guard reads(as: "float") || reads(as: "int") else { return nil }
        if let value = Self.integer(text) { return Double(value) }
        return Self.float(text)
    }

    static func integer(_ text: String) -> Int? {
        let bytes = Array(text.utf8)
        if bytes.count > 2, bytes[0] == UInt8(ascii: "0") {
            let digits = String(decoding: bytes[2...], as: UTF8.self)
            if bytes[1] == UInt8(ascii: "o") { return digits.utf8.allSatisfy { (48...55).contains($0) } ? Int(digits, radix: 8) : nil }
            if bytes[1] == UInt8(ascii: "x") { return digits.utf8.allSatisfy(\.isHexDigit) ? Int(digits, radix: 16) : nil }
        }
        let unsigned = bytes.first == UInt8(ascii: "-") || bytes.first == UInt8(ascii: "+") ? bytes.dropFirst() : bytes[...]
        guard !unsigned.isEmpty, unsigned.allSatisfy(\.isDecimalDigit) else { return nil }
        return Int(text)
    }

    static func float(_ text: String) -> Double? {
        switch text {
        case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF": return .infinity
        case "-.inf", "-.Inf", "-.INF": return -.infinity
        case ".nan", ".NaN", ".NAN": return .nan
        default: break
        }
        // [-+]? ( . digits | digits ( . digits? )? ) ( [eE] [-+]? digits )?
        var bytes = Array(text.utf8)[...]
        if bytes.first == UInt8(ascii: "-") || bytes.first == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
        let whole = bytes.prefix(while: \.isDecimalDigit)
        bytes = bytes.dropFirst(whole.count)
        var fraction: ArraySlice<UInt8> = []
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            fraction = bytes.prefix(while: \.isDecimalDigit)
            bytes = bytes.dropFirst(fraction.count)
        }
        guard !whole.isEmpty || !fraction.isEmpty else { return nil }
        if bytes.first == UInt8(ascii: "e") || bytes.first == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if bytes.first == UInt8(ascii: "-") || bytes.first == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
            guard !bytes.isEmpty, bytes.allSatisfy(\.isDecimalDigit) else { return nil }
            bytes = []
        }
        guard bytes.isEmpty else { return nil }
        return Double(text)
    }
}

private extension UInt8 {
    var isDecimalDigit: Bool { (48...57).contains(self) }
    var isHexDigit: Bool { isDecimalDigit || (65...70).contains(self) || (97...102).contains(self) }
}

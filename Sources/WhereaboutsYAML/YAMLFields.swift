/// The keys of one YAML mapping, checked against the keys it may have, with readers that name the
/// dotted key and the line in every error.
struct YAMLFields {
    private let fields: [String: YAMLNode]
    private let parent: YAMLNode
    private let key: String

    /// The mapping `node` at dotted path `key` (empty at the top); an unknown, repeated or
    /// non-string key is an error.
    package init(_ node: YAMLNode, key: String, allowed: [String]) throws(YAMLFileError) {
        let listed = allowed.sorted().joined(separator: ", ")
        guard case .mapping(let pairs, _) = node else {
            throw YAMLFileError("Expected a mapping with keys \(listed).", key: key.isEmpty ? nil : key, line: node.mark.line)
        }
        var fields: [String: YAMLNode] = [:]
        for pair in pairs {
            let (name, value) = (pair.key, pair.value)
            guard let text = name.text else {
                throw YAMLFileError("Keys must be strings.", key: key, line: name.mark.line)
            }
            let path = key.isEmpty ? text : "\(key).\(text)"
            guard allowed.contains(text) else {
                throw YAMLFileError("Unknown key `\(text)`; allowed keys are \(listed).", key: path, line: name.mark.line)
            }
            guard fields[text] == nil else {
                throw YAMLFileError("The key `\(text)` appears twice.", key: path, line: name.mark.line)
            }
            fields[text] = value
        }
        self.fields = fields
        self.parent = node
        self.key = key
    }

    /// The dotted path of `name`.
    package func path(_ name: String) -> String { key.isEmpty ? name : "\(key).\(name)" }

    /// The line of `name`'s value, when present.
    package func line(_ name: String) -> Int? { fields[name]?.mark.line }

    /// The value of `name`, when present.
    package subscript(_ name: String) -> YAMLNode? { fields[name] }

    /// The non-empty string `name`; missing is an error.
    package func string(_ name: String) throws(YAMLFileError) -> String {
        guard let value = try optionalString(name) else { throw missing(name) }
        return value
    }

    /// The non-empty string `name`, or `nil` when absent.
    func optionalString(_ name: String) throws(YAMLFileError) -> String? {
        guard let node = fields[name] else { return nil }
        guard case .scalar(let scalar) = node, !scalar.text.isEmpty else {
            throw YAMLFileError("`\(name)` must be a non-empty string.", key: path(name), line: node.mark.line)
        }
        return scalar.text
    }

    /// The finite number `name` within `range`; missing is an error.
    package func number(_ name: String, range: ClosedRange<Double>, unit: String) throws(YAMLFileError) -> Double {
        guard let value = try optionalNumber(name, range: range, unit: unit) else { throw missing(name) }
        return value
    }

    /// The finite number `name` within `range`, or `nil` when absent.
    package func optionalNumber(_ name: String, range: ClosedRange<Double>, unit: String) throws(YAMLFileError) -> Double? {
        guard let node = fields[name] else { return nil }
        guard case .scalar(let scalar) = node, let value = Double(scalar.text), value.isFinite else {
            throw YAMLFileError("`\(name)` must be a number (\(unit)).", key: path(name), line: node.mark.line)
        }
        guard range.contains(value) else {
            throw YAMLFileError(
                "`\(name)` is \(scalar.text) \(unit); it must lie between \(Self.format(range.lowerBound)) and \(Self.format(range.upperBound)).",
                key: path(name), line: node.mark.line)
        }
        return value
    }

    /// The error for the required key `name` missing from this mapping.
    func missing(_ name: String) -> YAMLFileError {
        YAMLFileError("The key `\(name)` is missing.", key: path(name), line: parent.mark.line)
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}

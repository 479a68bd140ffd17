/// A position in YAML text: 1-based line and column (the column counts characters).
package struct YAMLMark: Sendable, Hashable, CustomStringConvertible {
    /// The 1-based line.
    package var line: Int
    /// The 1-based column, in characters.
    package var column: Int

    /// Creates a mark.
    package init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// `line 3, column 7`.
    package var description: String { "line \(line), column \(column)" }
}

/// One node of a YAML document as written: a scalar, a list or a mapping, each with the mark
/// where it starts. Mappings keep their keys in file order and keep repeated keys, so that each
/// reader can name the repeated key and both lines.
package enum YAMLNode: Sendable, Hashable {
    /// A scalar: its text, style and tag (``YAMLScalar``).
    case scalar(YAMLScalar)
    /// A list of nodes, starting at `mark`.
    case sequence([YAMLNode], mark: YAMLMark)
    /// A mapping's key-value pairs in file order, starting at `mark`.
    case mapping([YAMLPair], mark: YAMLMark)

    /// Where the node starts.
    package var mark: YAMLMark {
        switch self {
        case .scalar(let scalar): scalar.mark
        case .sequence(_, let mark), .mapping(_, let mark): mark
        }
    }

    /// The text of a scalar, whatever its style (`nil` for a list or mapping).
    package var text: String? {
        guard case .scalar(let scalar) = self else { return nil }
        return scalar.text
    }

    /// The items of a list (`nil` for a scalar or mapping).
    package var items: [YAMLNode]? {
        guard case .sequence(let items, _) = self else { return nil }
        return items
    }

    /// The pairs of a mapping, in file order (`nil` for a scalar or list).
    package var pairs: [YAMLPair]? {
        guard case .mapping(let pairs, _) = self else { return nil }
        return pairs
    }

    /// Whether this is a scalar that stands for null (``YAMLScalar/isNull``).
    package var isNull: Bool {
        guard case .scalar(let scalar) = self else { return false }
        return scalar.isNull
    }

    /// The value of the first pair of a mapping whose key is a scalar with text `key`.
    package subscript(key: String) -> YAMLNode? {
        pairs?.first { $0.key.text == key }?.value
    }

    /// The first key of a mapping that repeats an earlier scalar key, with the mark of the
    /// earlier one; `nil` when every key is unique (or this is not a mapping).
    package var repeatedKey: (key: YAMLNode, first: YAMLMark)? {
        var seen: [String: YAMLMark] = [:]
        for pair in pairs ?? [] {
            guard let text = pair.key.text else { continue }
            if let first = seen[text] { return (pair.key, first) }
            seen[text] = pair.key.mark
        }
        return nil
    }
}

/// One key and its value in a YAML mapping.
package struct YAMLPair: Sendable, Hashable {
    /// The key: usually a scalar, but YAML allows any node (`? [a, b]`).
    package var key: YAMLNode
    /// The value (an empty plain scalar when the key has none).
    package var value: YAMLNode

    /// Creates a pair.
    package init(key: YAMLNode, value: YAMLNode) {
        self.key = key
        self.value = value
    }
}

import CYAML

extension YAMLDocument {
    /// Builds the tree from libyaml's events with an explicit stack of open collections.
    struct TreeBuilder {
        private enum Open {
            case sequence([YAMLNode], mark: YAMLMark)
            /// The pairs so far and a key still waiting for its value.
            case mapping([YAMLPair], pendingKey: YAMLNode?, mark: YAMLMark)
        }

        let nestingLimit: Int
        private(set) var root: YAMLNode?
        private var open: [Open] = []
        private var documents = 0

        init(nestingLimit: Int) {
            self.nestingLimit = nestingLimit
        }

        mutating func add(_ event: yaml_event_t) throws(YAMLParseError) {
            let mark = YAMLMark(event.start_mark)
            switch event.type {
            case YAML_DOCUMENT_START_EVENT:
                documents += 1
                guard documents == 1 else {
                    throw YAMLParseError("a second YAML document starts here; the file must hold one document", at: mark)
                }
            case YAML_ALIAS_EVENT:
                let name = event.data.alias.anchor.map { String(cString: $0) } ?? ""
                throw YAMLParseError(
                    "the alias `*\(name)` is not supported; anchors and aliases are not read, so write the value out in full", at: mark)
            case YAML_SCALAR_EVENT:
                let scalar = event.data.scalar
                let text = String(decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length), as: UTF8.self)
                let tag = scalar.tag.map { String(cString: $0) }
                try finish(.scalar(YAMLScalar(text: text, style: Self.style(scalar.style), tag: tag, mark: mark)))
            case YAML_SEQUENCE_START_EVENT:
                try push(.sequence([], mark: mark), at: mark)
            case YAML_MAPPING_START_EVENT:
                try push(.mapping([], pendingKey: nil, mark: mark), at: mark)
            case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                switch open.popLast() {
                case .sequence(let items, let start):
                    try finish(.sequence(items, mark: start))
                case .mapping(let pairs, _, let start):
                    try finish(.mapping(pairs, mark: start))
                case nil:
                    throw YAMLParseError("a collection ends that never started", at: mark)
                }
            default:
                break  // stream start, document end
            }
        }

        private mutating func push(_ collection: Open, at mark: YAMLMark) throws(YAMLParseError) {
            guard open.count < nestingLimit else {
                throw YAMLParseError("lists and mappings nest more than \(nestingLimit) levels deep here", at: mark)
            }
            open.append(collection)
        }

        /// Hands a finished node to the collection that holds it, or makes it the root.
        private mutating func finish(_ node: YAMLNode) throws(YAMLParseError) {
            switch open.popLast() {
            case nil:
                root = node
            case .sequence(var items, let mark):
                items.append(node)
                open.append(.sequence(items, mark: mark))
            case .mapping(var pairs, let key?, let mark):
                pairs.append(YAMLPair(key: key, value: node))
                open.append(.mapping(pairs, pendingKey: nil, mark: mark))
            case .mapping(let pairs, nil, let mark):
                open.append(.mapping(pairs, pendingKey: node, mark: mark))
            }
        }

        private static func style(_ style: yaml_scalar_style_t) -> YAMLScalar.Style {
            switch style {
            case YAML_SINGLE_QUOTED_SCALAR_STYLE: .singleQuoted
            case YAML_DOUBLE_QUOTED_SCALAR_STYLE: .doubleQuoted
            case YAML_LITERAL_SCALAR_STYLE: .literal
            case YAML_FOLDED_SCALAR_STYLE: .folded
            default: .plain
            }
        }
    }
}

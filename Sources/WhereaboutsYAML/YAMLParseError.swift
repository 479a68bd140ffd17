/// Why YAML text could not be read as one document: the place and what was expected there, in
/// libyaml's words (`did not find expected ',' or ']'`) or ours (an alias, a second document,
/// nesting past the bound).
package struct YAMLParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, as a phrase: `did not find expected key (while parsing a block mapping that
    /// starts at line 2, column 3)`.
    package var message: String
    /// Where the problem was found.
    package var mark: YAMLMark

    /// Creates an error.
    package init(_ message: String, at mark: YAMLMark) {
        self.message = message
        self.mark = mark
    }

    /// The 1-based line of the problem.
    package var line: Int { mark.line }
    /// The 1-based column of the problem, in characters.
    package var column: Int { mark.column }

    /// `line 3, column 1: did not find expected ',' or ']' (while parsing a flow sequence that
    /// starts at line 1, column 10)`.
    package var description: String { "\(mark): \(message)" }
}

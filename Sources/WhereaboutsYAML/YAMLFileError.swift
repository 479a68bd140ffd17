/// Why a YAML configuration file (the subscriber's circles file, the publisher's places file)
/// could not be used. Each message names the file's key and line to fix.
package struct YAMLFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The problem, as a sentence a user can act on.
    package var message: String
    /// The 1-based line of the offending key or value, when known.
    package var line: Int?
    /// The dotted path of the offending key, such as `circles[1].members[0].user`.
    package var key: String?

    /// Creates an error.
    package init(_ message: String, key: String? = nil, line: Int? = nil) {
        self.message = message
        self.key = key
        self.line = line
    }

    /// `line 12: circles[1].members[0].color: ...`.
    package var description: String {
        var prefix = ""
        if let line { prefix += "line \(line): " }
        if let key { prefix += "\(key): " }
        return prefix + message
    }
}

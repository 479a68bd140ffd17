import Foundation

/// A well-formedness error: where (line, from 1) and why the document stops being XML.
struct XMLSyntaxError: Error, Equatable, CustomStringConvertible {
    /// The line of the fault, counted in line feeds from 1.
    var line: Int
    /// What is wrong, in a sentence fragment ("mismatched end tag: ...").
    var reason: String

    var description: String { "line \(line): \(reason)" }
}

import Foundation

/// A circle's id and display name, as they appear in views and in `GET /api/circles`.
package struct CircleSummary: Sendable, Hashable, Codable {
    /// The circle's id from the circles file: lower-case letters, digits, `-` and `_`.
    package var id: String
    /// The circle's display name.
    package var name: String

    /// Creates a summary.
    package init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}

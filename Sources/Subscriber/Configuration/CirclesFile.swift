import Foundation
import OwnTracksCrypto
import WhereaboutsCore
import WhereaboutsYAML

/// The parsed, validated contents of a circles file.
///
/// The file is YAML (see `docs/subscriber.md` and `examples/circles.yaml`):
/// ```yaml
/// circles:
///   - id: family          # lower-case letters, digits, - and _
///     name: Family
///     members:
///       - user: alice      # owntracks/<user>/<device>
///         device: phone
///         name: Alice      # optional, defaults to the user name
///         color: "#e6194b" # optional
/// ```
/// Unknown keys, missing keys, wrong types, duplicate circle ids and duplicate members in a
/// circle are errors that name the key and line.
package struct CirclesFile: Sendable, Hashable {
    /// The circles in file order.
    package var circles: [Circle]
    /// The decryption key of each member with a `secretFile`, read by ``load(path:)``.
    var secrets: [MemberID: OwnTracksKey] = [:]

    /// Creates a circles file from already-validated circles.
    package init(circles: [Circle]) {
        self.circles = circles
    }

    /// Every distinct member device across all circles, sorted.
    package var memberIDs: [MemberID] {
        Array(Set(circles.flatMap { $0.members.map(\.id) })).sorted()
    }

    /// Reads and validates the file at `path`.
    package static func load(path: String) throws(CirclesFileError) -> CirclesFile {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw CirclesFileError("The circles file \(path) cannot be read: \(error.localizedDescription)")
        }
        var file = try parse(yaml: text)
        file.secrets = try file.readSecrets(relativeTo: URL(fileURLWithPath: path).deletingLastPathComponent())
        return file
    }

    /// Parses and validates circles-file YAML.
    package static func parse(yaml: String) throws(CirclesFileError) -> CirclesFile {
        if let line = YAMLNesting.lineDeeperThanLimit(in: yaml) {
            throw CirclesFileError(
                "The circles file nests more than \(YAMLNesting.limit) levels deep; it needs 5 (circles, circle, members, member).",
                line: line
            )
        }
        let root: YAMLNode?
        do {
            root = try YAMLDocument.parse(yaml)
        } catch {
            throw CirclesFileError("The circles file is not valid YAML at column \(error.column): \(error.message).", line: error.line)
        }
        guard let root else {
            throw CirclesFileError("The circles file is empty; it needs a `circles:` list.", key: "circles")
        }
        return try CirclesFileReader().read(root)
    }
}

/// Why a circles file could not be used: a message naming the key (`circles[1].members[0].user`)
/// and line to fix.
package typealias CirclesFileError = YAMLFileError

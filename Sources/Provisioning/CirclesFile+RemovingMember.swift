import Foundation
import Subscriber
import Yams

/// Takes a member device out of a circles file's text, keeping every other line (comments
/// included) as it was.
enum CirclesFileText {
    /// `text` without the list items of `member` in every circle's `members`. Only block-style
    /// lists (`- user: ...`, as in examples/circles.yaml) are edited; the result must parse and
    /// hold the same circles and members but `member`, or nothing is returned.
    static func removing(_ member: MemberID, from text: String) throws(ProvisioningError) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var ranges: [Range<Int>] = []
        for item in try items(of: member, in: text) {
            let first = item.line - 1  // the item's first key; its dash is on this line
            guard first < lines.count else { continue }
            let line = Array(lines[first].utf8)
            let keyColumn = item.column - 1
            guard let dash = line.prefix(keyColumn).lastIndex(of: UInt8(ascii: "-")),
                  line[..<dash].allSatisfy({ $0 == UInt8(ascii: " ") }) else {
                throw ProvisioningError(
                    "The circles file lists \(member.user)/\(member.device) at line \(item.line) in a form invite cannot edit (not a `- user: ...` item); remove the member there by hand.")
            }
            var end = first + 1
            while end < lines.count {
                let next = lines[end]
                let indent = next.prefix { $0 == " " }.count
                let body = next.dropFirst(indent)
                if !body.isEmpty, !body.hasPrefix("#"), indent <= dash { break }
                end += 1
            }
            while end > first + 1, lines[end - 1].trimmingCharacters(in: .whitespaces).isEmpty || lines[end - 1].trimmingCharacters(in: .whitespaces).hasPrefix("#") {
                end -= 1
            }
            ranges.append(first..<end)
        }
        for range in ranges.sorted(by: { $0.lowerBound > $1.lowerBound }) { lines.removeSubrange(range) }
        let result = lines.joined(separator: "\n")
        try check(result, against: text, without: member)
        return result
    }

    /// The marks of `member`'s items (their first key) in every circle's `members` list.
    private static func items(of member: MemberID, in text: String) throws(ProvisioningError) -> [Mark] {
        let root: Node?
        do { root = try Yams.compose(yaml: text) } catch { throw ProvisioningError("The circles file is not valid YAML: \(error).") }
        var marks: [Mark] = []
        for circle in root?["circles"]?.sequence ?? [] {
            for item in circle["members"]?.sequence ?? [] {
                guard item["user"]?.string == member.user, item["device"]?.string == member.device else { continue }
                guard let mark = item.mapping?.keys.first?.mark else { continue }
                marks.append(mark)
            }
        }
        return marks
    }

    private static func check(_ edited: String, against original: String, without member: MemberID) throws(ProvisioningError) {
        let before: CirclesFile, after: CirclesFile
        do {
            before = try CirclesFile.parse(yaml: original)
            after = try CirclesFile.parse(yaml: edited)
        } catch {
            throw ProvisioningError(
                "Without \(member.user)/\(member.device) the circles file would not be valid (\(error)); a circle whose only member they are must be removed by hand.")
        }
        var expected = before.circles
        for index in expected.indices { expected[index].members.removeAll { $0.id == member } }
        guard expected == after.circles else {
            throw ProvisioningError("Removing \(member.user)/\(member.device) from the circles file would change more than that member; remove them by hand.")
        }
    }
}

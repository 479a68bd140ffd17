import Foundation
import Subscriber
import WhereaboutsYAML

/// Takes a member device out of a circles file's text, or adds one to a circle, keeping every
/// other line (comments included) as it was.
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
            ranges.append(first..<itemEnd(in: lines, first: first, dash: dash))
        }
        for range in ranges.sorted(by: { $0.lowerBound > $1.lowerBound }) { lines.removeSubrange(range) }
        let result = lines.joined(separator: "\n")
        try check(result, against: text, without: member)
        return result
    }

    /// The marks of `member`'s items (their first key) in every circle's `members` list.
    private static func items(of member: MemberID, in text: String) throws(ProvisioningError) -> [YAMLMark] {
        let root = try document(text)
        var marks: [YAMLMark] = []
        for circle in root?["circles"]?.items ?? [] {
            for item in circle["members"]?.items ?? [] {
                guard item["user"]?.text == member.user, item["device"]?.text == member.device else { continue }
                guard let mark = item.pairs?.first?.key.mark else { continue }
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

extension CirclesFileText {
    /// `text` with `member` appended to the `members` list of circle `circle`, indented as that
    /// list's last item (block style only); the result must parse and differ by that member only.
    static func adding(_ member: Member, toCircle circle: String, in text: String) throws(ProvisioningError) -> String {
        let root = try document(text)
        guard let node = (root?["circles"]?.items ?? []).first(where: { $0["id"]?.text == circle }) else {
            throw ProvisioningError("The circles file has no circle '\(circle)'.")
        }
        guard let last = node["members"]?.items?.last, let mark = last.pairs?.first?.key.mark else {
            throw ProvisioningError("Circle '\(circle)' has no block-style members list to add to; add \(member.user)/\(member.device) by hand.")
        }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let first = mark.line - 1
        let keyColumn = mark.column - 1
        guard first < lines.count, let dash = Array(lines[first].utf8).prefix(keyColumn).lastIndex(of: UInt8(ascii: "-")),
              lines[first].utf8.prefix(dash).allSatisfy({ $0 == UInt8(ascii: " ") }) else {
            throw ProvisioningError("Circle '\(circle)' lists its members in a form invite cannot edit; add \(member.user)/\(member.device) by hand.")
        }
        let end = itemEnd(in: lines, first: first, dash: dash)
        func quoted(_ value: String) -> String {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .withoutEscapingSlashes
            let data = (try? encoder.encode(value)) ?? Data("\"\"".utf8)
            return String(decoding: data, as: UTF8.self)  // a JSON string is a YAML double-quoted scalar
        }
        let keyPad = String(repeating: " ", count: keyColumn)
        var added = [String(repeating: " ", count: dash) + "-" + String(repeating: " ", count: keyColumn - dash - 1) + "user: \(quoted(member.user))",
                     keyPad + "device: \(quoted(member.device))"]
        if let secretFile = member.secretFile { added.append(keyPad + "secretFile: \(quoted(secretFile))") }
        lines.insert(contentsOf: added, at: end)
        let result = lines.joined(separator: "\n")
        let before: CirclesFile, after: CirclesFile
        do {
            before = try CirclesFile.parse(yaml: text)
            after = try CirclesFile.parse(yaml: result)
        } catch {
            throw ProvisioningError("Adding \(member.user)/\(member.device) to circle '\(circle)' would make the circles file invalid (\(error)); add them by hand.")
        }
        var expected = before.circles
        for index in expected.indices where expected[index].id == circle { expected[index].members.append(member) }
        guard expected == after.circles else {
            throw ProvisioningError("Adding \(member.user)/\(member.device) to circle '\(circle)' would change more than that; add them by hand.")
        }
        return result
    }
}

extension CirclesFileText {
    /// The circles file's YAML tree, or `nil` when the text holds no document.
    static func document(_ text: String) throws(ProvisioningError) -> YAMLNode? {
        do { return try YAMLDocument.parse(text) } catch { throw ProvisioningError("The circles file is not valid YAML: \(error).") }
    }

    /// The line after the list item that starts on line `first` (0-based) with its dash at
    /// column `dash`: the item runs to the next line that holds something at the dash's
    /// indentation or less; blank and comment lines at its end belong to what follows.
    static func itemEnd(in lines: [String], first: Int, dash: Int) -> Int {
        func isBlankOrComment(_ line: String) -> Bool {
            let body = line.trimmingCharacters(in: .whitespaces)
            return body.isEmpty || body.hasPrefix("#")
        }
        var end = first + 1
        while end < lines.count {
            let indent = lines[end].prefix { $0 == " " }.count
            if !isBlankOrComment(lines[end]), indent <= dash { break }
            end += 1
        }
        while end > first + 1, isBlankOrComment(lines[end - 1]) { end -= 1 }
        return end
    }
}

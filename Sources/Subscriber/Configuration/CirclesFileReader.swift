import WhereaboutsCore
import WhereaboutsYAML

/// Walks a composed YAML tree and builds validated circles, naming key and line on every error.
struct CirclesFileReader {
    func read(_ root: YAMLNode) throws(CirclesFileError) -> CirclesFile {
        let top = try mapping(root, key: "", allowed: ["circles"])
        guard let list = top["circles"] else {
            throw CirclesFileError("The key `circles` is missing; add a list of circles.", key: "circles", line: line(root))
        }
        guard case .sequence(let items, _) = list else {
            throw CirclesFileError("`circles` must be a list of circles.", key: "circles", line: line(list))
        }
        var circles: [Circle] = []
        var seenIDs: [String: Int] = [:]
        for (index, item) in items.enumerated() {
            let circle = try readCircle(item, key: "circles[\(index)]")
            if let first = seenIDs[circle.id] {
                throw CirclesFileError(
                    "The circle id `\(circle.id)` is used twice (first at line \(first)); ids must be unique.",
                    key: "circles[\(index)].id", line: line(item))
            }
            seenIDs[circle.id] = line(item) ?? 0
            circles.append(circle)
        }
        return CirclesFile(circles: circles)
    }

    private func readCircle(_ node: YAMLNode, key: String) throws(CirclesFileError) -> Circle {
        let fields = try mapping(node, key: key, allowed: ["id", "name", "members", "places", "privacy", "grid", "owntracks"])
        let id = try requiredString(fields, "id", in: key, parent: node)
        try check(id, matches: Self.isIdentifier, key: "\(key).id", line: line(fields["id"]),
                  rule: "a circle id uses only lower-case letters, digits, `-` and `_`")
        let name = try string(fields, "name", in: key) ?? id
        guard let membersNode = fields["members"] else {
            throw CirclesFileError("The key `members` is missing; add a list of members.", key: "\(key).members", line: line(node))
        }
        guard case .sequence(let items, _) = membersNode else {
            throw CirclesFileError("`members` must be a list of members.", key: "\(key).members", line: line(membersNode))
        }
        var members: [Member] = []
        var seen: Set<MemberID> = []
        for (index, item) in items.enumerated() {
            let memberKey = "\(key).members[\(index)]"
            let member = try readMember(item, key: memberKey)
            guard seen.insert(member.id).inserted else {
                throw CirclesFileError(
                    "The member \(member.id) appears twice in circle `\(id)`.", key: memberKey, line: line(item))
            }
            members.append(member)
        }
        var places: [Place] = []
        if let node = fields["places"] {
            places = try PlaceYAML.places(node, key: "\(key).places", use: .circle, owner: "circle `\(id)`")
        }
        let privacy = try level(fields, "privacy", in: key, parent: node) ?? .exact
        let grid = try number(fields, "grid", in: key, range: 10...100_000, unit: "metres") ?? 500
        let ownTracksTree = try flag(fields, "owntracks", in: key) ?? false
        return Circle(
            id: id, name: name, members: members, places: places, privacy: privacy, grid: grid, ownTracksTree: ownTracksTree)
    }

    private func readMember(_ node: YAMLNode, key: String) throws(CirclesFileError) -> Member {
        let fields = try mapping(node, key: key, allowed: ["user", "device", "name", "color", "secretFile", "share"])
        let user = try requiredString(fields, "user", in: key, parent: node)
        let device = try requiredString(fields, "device", in: key, parent: node)
        for (field, value) in [("user", user), ("device", device)] {
            if let problem = OwnTracksName.problem(with: value) {
                throw CirclesFileError(
                    "`\(value)` is not allowed: a \(field) name is one MQTT topic level, matched exactly (upper case included), and \(problem).",
                    key: "\(key).\(field)", line: line(fields[field]))
            }
        }
        let name = try string(fields, "name", in: key)
        let color = try string(fields, "color", in: key)
        if let color {
            try check(color, matches: Self.isColor, key: "\(key).color", line: line(fields["color"]),
                      rule: "a colour is written `#rrggbb` (quote it: `color: \"#e6194b\"`)")
        }
        let secretFile = try string(fields, "secretFile", in: key)
        let share = try level(fields, "share", in: key, parent: node)
        return Member(user: user, device: device, name: name, color: color, secretFile: secretFile, share: share)
    }

    // MARK: Helpers

    private func mapping(_ node: YAMLNode, key: String, allowed: Set<String>) throws(CirclesFileError) -> [String: YAMLNode] {
        guard case .mapping(let pairs, _) = node else {
            throw CirclesFileError("Expected a mapping with keys \(allowed.sorted().joined(separator: ", ")).", key: key.isEmpty ? nil : key, line: line(node))
        }
        var result: [String: YAMLNode] = [:]
        for pair in pairs {
            let (k, v) = (pair.key, pair.value)
            guard let name = k.text else {
                throw CirclesFileError("Keys must be strings.", key: key, line: line(k))
            }
            guard allowed.contains(name) else {
                throw CirclesFileError(
                    "Unknown key `\(name)`; allowed keys are \(allowed.sorted().joined(separator: ", ")).",
                    key: key.isEmpty ? name : "\(key).\(name)", line: line(k))
            }
            guard result[name] == nil else {
                throw CirclesFileError("The key `\(name)` appears twice.", key: key.isEmpty ? name : "\(key).\(name)", line: line(k))
            }
            result[name] = v
        }
        return result
    }

    /// The non-empty string under `name`, or `nil` when the key is absent.
    private func string(_ fields: [String: YAMLNode], _ name: String, in key: String) throws(CirclesFileError) -> String? {
        guard let node = fields[name] else { return nil }
        guard case .scalar(let scalar) = node, !scalar.text.isEmpty else {
            throw CirclesFileError("`\(name)` must be a non-empty string.", key: "\(key).\(name)", line: line(node))
        }
        return scalar.text
    }

    /// The non-empty string under `name`; a missing key is an error that names it.
    private func requiredString(_ fields: [String: YAMLNode], _ name: String, in key: String, parent: YAMLNode) throws(CirclesFileError) -> String {
        guard let value = try string(fields, name, in: key) else {
            throw CirclesFileError("The key `\(name)` is missing.", key: "\(key).\(name)", line: line(parent))
        }
        return value
    }

    /// The number under `name`, within `range`; a missing key is an error that names it.
    private func requiredNumber(
        _ fields: [String: YAMLNode], _ name: String, in key: String, parent: YAMLNode, range: ClosedRange<Double>, unit: String
    ) throws(CirclesFileError) -> Double {
        guard let value = try number(fields, name, in: key, range: range, unit: unit) else {
            throw CirclesFileError("The key `\(name)` is missing.", key: "\(key).\(name)", line: line(parent))
        }
        return value
    }

    private func level(_ fields: [String: YAMLNode], _ name: String, in key: String, parent: YAMLNode) throws(CirclesFileError) -> PrivacyLevel? {
        guard let text = try string(fields, name, in: key) else { return nil }
        guard let level = PrivacyLevel(rawValue: text) else {
            throw CirclesFileError(
                "`\(name)` is `\(text)`; it must be one of exact, coarse, place, hidden.", key: "\(key).\(name)", line: line(fields[name]))
        }
        return level
    }

    private func flag(_ fields: [String: YAMLNode], _ name: String, in key: String) throws(CirclesFileError) -> Bool? {
        guard let node = fields[name] else { return nil }
        guard case .scalar(let scalar) = node, let value = Bool(scalar.text.lowercased()) else {
            throw CirclesFileError("`\(name)` must be true or false.", key: "\(key).\(name)", line: line(node))
        }
        return value
    }

    /// The number under `name`, within `range`, or `nil` when the key is absent.
    private func number(
        _ fields: [String: YAMLNode], _ name: String, in key: String, range: ClosedRange<Double>, unit: String
    ) throws(CirclesFileError) -> Double? {
        guard let node = fields[name] else { return nil }
        guard case .scalar(let scalar) = node, let value = Double(scalar.text), value.isFinite else {
            throw CirclesFileError("`\(name)` must be a number (\(unit)).", key: "\(key).\(name)", line: line(node))
        }
        guard range.contains(value) else {
            throw CirclesFileError(
                "`\(name)` is \(scalar.text) \(unit); it must lie between \(Self.format(range.lowerBound)) and \(Self.format(range.upperBound)).",
                key: "\(key).\(name)", line: line(node))
        }
        return value
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    private func check(
        _ value: String, matches predicate: (String) -> Bool, key: String, line: Int?, rule: String
    ) throws(CirclesFileError) {
        guard predicate(value) else {
            throw CirclesFileError("`\(value)` is not allowed: \(rule).", key: key, line: line)
        }
    }

    private func line(_ node: YAMLNode?) -> Int? { node?.mark.line }

    static func isIdentifier(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.count <= 64 && s.utf8.allSatisfy { byte in
            (97...122).contains(byte) || (48...57).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }

    static func isColor(_ s: String) -> Bool {
        let u = Array(s.utf8)
        return u.count == 7 && u[0] == UInt8(ascii: "#") && u[1...].allSatisfy { $0.isHexDigit }
    }
}

private extension UInt8 {
    var isHexDigit: Bool {
        (48...57).contains(self) || (65...70).contains(self) || (97...102).contains(self)
    }
}

import WhereaboutsMQTT

extension CirclesFile {
    /// Refuses a member whose user or device name `kind` cannot carry as a topic level (NATS:
    /// `.`, spaces, `@`, `*`, `>`), naming the circle and the member.
    package func check(for kind: BrokerKind) throws(CirclesFileError) {
        for (circleIndex, circle) in circles.enumerated() {
            for (memberIndex, member) in circle.members.enumerated() {
                for (field, name) in [("user", member.user), ("device", member.device)] {
                    if let problem = kind.problem(withTopicLevel: name) {
                        throw CirclesFileError(
                            "The \(field) name `\(name)` of circle `\(circle.id)` cannot be used with --broker-kind \(kind.rawValue): \(problem). Rename it.",
                            key: "circles[\(circleIndex)].members[\(memberIndex)].\(field)")
                    }
                }
            }
        }
    }
}

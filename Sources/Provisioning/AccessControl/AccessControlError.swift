import Subscriber
import WhereaboutsCore

/// Why broker access control could not be generated or applied; each message says what to change.
package struct AccessControlError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A sentence a user can act on.
    package let description: String

    init(_ description: String) {
        self.description = description
    }

    /// A member's user name is also the subscriber's or an operator's account: the member would
    /// log in with that account's rights (every position, or writing the views).
    static func memberCollides(user: String, with account: String, role: String) -> AccessControlError {
        AccessControlError(
            "The member user '\(user)' has the same name as the \(role) account '\(account)': the member would get that account's rights. Rename the member in the circles file or choose another \(role) account name.")
    }

    /// Two generated accounts would have the same name.
    static func duplicateAccount(_ name: String, first: String, second: String) -> AccessControlError {
        AccessControlError(
            "The broker account '\(name)' would belong both to \(first) and to \(second). Rename one of them in the circles file (account names are whereabouts-<user>-<device>, and -presence for the presence connection).")
    }

    /// Refuses a member whose user or device name breaks ``OwnTracksName``'s rule. The circles
    /// file reader already refuses them; this guards circles built in code (`invite`), so that no
    /// generated rule names a topic a client can never publish on.
    static func checkNames(of circles: [Circle]) throws(AccessControlError) {
        for circle in circles {
            for member in circle.members {
                for (what, name) in [("user", member.user), ("device", member.device)] {
                    if let problem = OwnTracksName.problem(with: name) {
                        throw AccessControlError(
                            "The \(what) name '\(name)' of the member \(member.user)/\(member.device) in circle '\(circle.id)' cannot be used: \(problem).")
                    }
                }
            }
        }
    }
}

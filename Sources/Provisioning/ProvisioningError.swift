/// Why an invite could not be made or revoked; each message says what to change.
package struct ProvisioningError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A sentence a user can act on.
    package let description: String

    init(_ description: String) {
        self.description = description
    }
}

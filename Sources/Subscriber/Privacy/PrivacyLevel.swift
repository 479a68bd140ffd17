/// How much of a member's whereabouts a circle's audience sees (`privacy:` of a circle, `share:`
/// of a member in it). Ordered from most to least: a member's effective level in a circle is the
/// stricter of the two.
package enum PrivacyLevel: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    /// Everything: the fix, velocity, trail, the device's own regions.
    case exact
    /// The position snapped to the circle's grid (`grid`, metres); no velocity, no trail, no
    /// device regions; accuracy at least the grid.
    case coarse
    /// Only the circle place the member is at (or none: away), and the status.
    case place
    /// Nothing but the member's name and status.
    case hidden

    /// Whether `lhs` shows more than `rhs`.
    package static func < (lhs: PrivacyLevel, rhs: PrivacyLevel) -> Bool {
        (allCases.firstIndex(of: lhs) ?? 0) < (allCases.firstIndex(of: rhs) ?? 0)
    }
}

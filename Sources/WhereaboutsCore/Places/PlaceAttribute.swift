/// One attribute of a ``Place`` as the files spell it: its key, the values it takes, which places
/// may have it, and how its value is read from and written to a place.
///
/// ``Place/attributes`` lists every attribute once; from that list alone `WhereaboutsYAML`'s
/// `PlaceYAML` reads and checks the places of both YAML files (the circles file and the
/// publisher's `--places` file), and ``Place``'s JSON is encoded and decoded. So a new attribute
/// is a stored property of ``Place`` and one entry in that list.
package struct PlaceAttribute: Sendable {
    /// Which places may have the attribute.
    package enum Scope: Sendable {
        /// Every place: a circle's and a device's.
        case everyPlace
        /// Only a device's places (the publisher's `--places` file, its waypoints).
        case devicePlace
    }

    /// The values the attribute takes, and where a value goes in a place.
    package enum Value: Sendable {
        /// A name: non-empty, at most `maxLength` characters, no control characters.
        case name(maxLength: Int, get: @Sendable (Place) -> String, set: @Sendable (inout Place, String) -> Void)
        /// A finite number within `range`, in `unit` (named in messages); `get` is `nil` when unset.
        case number(
            range: ClosedRange<Double>, unit: String,
            get: @Sendable (Place) -> Double?, set: @Sendable (inout Place, Double) -> Void)
        /// A whole number within `range`, in `unit`; `get` is `nil` when unset.
        case wholeNumber(
            range: ClosedRange<Double>, unit: String,
            get: @Sendable (Place) -> Int?, set: @Sendable (inout Place, Int) -> Void)
        /// A profile, by its name (``MonitoringMode/name``) in YAML and its number in JSON; `get`
        /// is `nil` when unset.
        case profile(get: @Sendable (Place) -> MonitoringMode?, set: @Sendable (inout Place, MonitoringMode) -> Void)
    }

    /// The key in YAML and JSON (`radius`, `profileOnLeave`).
    package let key: String
    /// Whether every place must have it.
    package let isRequired: Bool
    /// Which places may have it.
    package let scope: Scope
    /// What it takes.
    package let value: Value

    /// Declares an attribute.
    package init(_ key: String, required: Bool = false, scope: Scope = .everyPlace, _ value: Value) {
        self.key = key
        self.isRequired = required
        self.scope = scope
        self.value = value
    }

    /// Whether `name` is acceptable as a name of at most `maxLength` characters.
    package static func isValidName(_ name: String, maxLength: Int) -> Bool {
        !name.isEmpty && name.count <= maxLength && !name.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}

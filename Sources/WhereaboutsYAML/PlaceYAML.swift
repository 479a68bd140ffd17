import WhereaboutsCore
import Yams

/// Reads and validates a YAML list of places, for both files that hold one: a circle's `places:`
/// in the subscriber's circles file and the publisher's `--places` file. The two differ only in
/// the attributes they accept (``Use``); every rule and every message is the same.
///
/// ```yaml
/// - name: Home            # required, unique ignoring case, 1 to 64 characters, no control characters
///   lat: 52.6638          # required, degrees
///   lon: -8.6267          # required, degrees
///   radius: 100           # required, metres, 1 to 50000
///   dwell: 120            # optional, seconds inside before an arrival counts (0 to 86400)
///   profile: significant  # publisher only: the profile while inside
///   profileOnLeave: active  # publisher only: the profile after leaving
///   tst: 1700000000       # publisher only: the OwnTracks waypoint timestamp sent as wtst (default 0)
/// ```
package enum PlaceYAML {
    /// A key a place may have in YAML; each is one attribute of ``Place``.
    package enum Attribute: String, CaseIterable, Sendable {
        case name, lat, lon, radius, dwell, profile, profileOnLeave, tst
    }

    /// Which file the list is in, and so which attributes it accepts.
    package enum Use: Sendable {
        /// A circle's `places:`: the place as the circle sees it (name, centre, radius, dwell).
        case circle
        /// The publisher's `--places` file: also the profiles and the waypoint timestamp; the
        /// places are waypoints of origin `file`.
        case device

        /// The keys a place accepts here.
        package var attributes: [Attribute] {
            switch self {
            case .circle: [.name, .lat, .lon, .radius, .dwell]
            case .device: Attribute.allCases
            }
        }
    }

    /// The places of the list `node` at dotted path `key` (`circles[0].places`, `places`).
    /// `owner` names what the list belongs to in the duplicate-name message (`circle `family``).
    package static func places(_ node: Node, key: String, use: Use, owner: String? = nil) throws(YAMLFileError) -> [Place] {
        guard case .sequence(let items) = node else {
            throw YAMLFileError("`\(lastComponent(of: key))` must be a list of places (name, lat, lon, radius).", key: key, line: node.mark?.line)
        }
        var places: [Place] = []
        var seen: [String: Int] = [:]
        for (index, item) in items.enumerated() {
            let placeKey = "\(key)[\(index)]"
            let place = try place(item, key: placeKey, use: use)
            if let first = seen[place.key] {
                let within = owner.map { " in \($0)" } ?? ""
                throw YAMLFileError(
                    "The place `\(place.name)` appears twice\(within) (first at line \(first)); place names are unique, ignoring case.",
                    key: "\(placeKey).name", line: item.mark?.line)
            }
            seen[place.key] = item.mark?.line ?? 0
            places.append(place)
        }
        return places
    }

    private static func place(_ node: Node, key: String, use: Use) throws(YAMLFileError) -> Place {
        let fields = try YAMLFields(node, key: key, allowed: use.attributes.map(\.rawValue))
        let name = try fields.string("name")
        guard name.count <= Place.maxNameLength, !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw YAMLFileError(
                "`name` must be 1 to \(Place.maxNameLength) characters without control characters.",
                key: "\(key).name", line: fields.line("name"))
        }
        let tst = try fields.optionalNumber("tst", range: 0...99_999_999_999, unit: "epoch seconds")
        if let tst, tst != tst.rounded() {
            throw YAMLFileError("`tst` must be whole epoch seconds.", key: "\(key).tst", line: fields.line("tst"))
        }
        return Place(
            name: name,
            lat: try fields.number("lat", range: -90...90, unit: "degrees"),
            lon: try fields.number("lon", range: -180...180, unit: "degrees"),
            radius: try fields.number("radius", range: 1...Place.maxRadius, unit: "metres"),
            dwell: try fields.optionalNumber("dwell", range: 0...Place.maxDwell, unit: "seconds"),
            profile: try profile(fields, "profile"),
            profileOnLeave: try profile(fields, "profileOnLeave"),
            waypoint: use == .device ? Place.Waypoint(tst: tst.map { Int($0) } ?? 0, origin: .file) : nil)
    }

    private static func profile(_ fields: YAMLFields, _ name: String) throws(YAMLFileError) -> MonitoringMode? {
        guard let word = try fields.optionalString(name) else { return nil }
        switch word {
        case "active": return .active
        case "significant": return .significant
        default:
            throw YAMLFileError(
                "`\(name)` is `\(word)`; it must be active or significant.", key: fields.path(name), line: fields.line(name))
        }
    }

    private static func lastComponent(of key: String) -> Substring {
        key.split(separator: ".").last ?? Substring(key)
    }
}

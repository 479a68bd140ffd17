import WhereaboutsCore

/// Reads and validates a YAML list of places, for both files that hold one: a circle's `places:`
/// in the subscriber's circles file and the publisher's `--places` file. The keys, their checks and
/// which file accepts which all come from ``Place/attributes`` (WhereaboutsCore), so this reader
/// names no attribute: the two files differ only in the places they hold (``Use``), and every
/// rule and every message is the same.
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
    /// Which file the list is in, and so which attributes it accepts.
    package enum Use: Sendable {
        /// A circle's `places:`: the place as the circle sees it (the attributes of every place).
        case circle
        /// The publisher's `--places` file: also the device-only attributes (profiles, the
        /// waypoint timestamp); the places are waypoints of origin `file`.
        case device

        /// The attributes a place accepts here, in ``Place/attributes`` order.
        package var attributes: [PlaceAttribute] {
            switch self {
            case .circle: Place.attributes.filter { $0.scope == .everyPlace }
            case .device: Place.attributes
            }
        }

        /// "name, lat, lon, radius; optional dwell, profile, profileOnLeave, tst": the keys a
        /// place takes here, for help texts.
        package var keySummary: String {
            let required = attributes.filter(\.isRequired).map(\.key).joined(separator: ", ")
            let optional = attributes.filter { !$0.isRequired }.map(\.key).joined(separator: ", ")
            return optional.isEmpty ? required : "\(required); optional \(optional)"
        }
    }

    /// The places of the list `node` at dotted path `key` (`circles[0].places`, `places`).
    /// `owner` names what the list belongs to in the duplicate-name message (`circle `family``).
    package static func places(_ node: YAMLNode, key: String, use: Use, owner: String? = nil) throws(YAMLFileError) -> [Place] {
        guard case .sequence(let items, _) = node else {
            let required = use.attributes.filter(\.isRequired).map(\.key).joined(separator: ", ")
            throw YAMLFileError("`\(lastComponent(of: key))` must be a list of places (\(required)).", key: key, line: node.mark.line)
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
                    key: "\(placeKey).name", line: item.mark.line)
            }
            seen[place.key] = item.mark.line
            places.append(place)
        }
        return places
    }

    private static func place(_ node: YAMLNode, key: String, use: Use) throws(YAMLFileError) -> Place {
        let attributes = use.attributes
        let fields = try YAMLFields(node, key: key, allowed: attributes.map(\.key))
        var place = Place(name: "", lat: 0, lon: 0, radius: 0)
        if use == .device { place.waypoint = Place.Waypoint(tst: 0, rid: nil, origin: .file) }
        for attribute in attributes {
            try read(attribute, from: fields, into: &place)
        }
        place.deriveMissingRID()
        return place
    }

    /// Reads one attribute into `place`: required ones must be present, every value is checked.
    private static func read(_ attribute: PlaceAttribute, from fields: YAMLFields, into place: inout Place) throws(YAMLFileError) {
        let name = attribute.key
        if attribute.isRequired, fields[name] == nil {
            throw fields.missing(name)
        }
        switch attribute.value {
        case .name(let maxLength, _, let set):
            guard let text = try fields.optionalString(name) else { return }
            guard PlaceAttribute.isValidName(text, maxLength: maxLength) else {
                throw YAMLFileError(
                    "`\(name)` must be 1 to \(maxLength) characters without control characters.", key: fields.path(name), line: fields.line(name))
            }
            set(&place, text)
        case .number(let range, let unit, _, let set):
            guard let value = try fields.optionalNumber(name, range: range, unit: unit) else { return }
            set(&place, value)
        case .wholeNumber(let range, let unit, _, let set):
            guard let value = try fields.optionalNumber(name, range: range, unit: unit) else { return }
            guard value == value.rounded() else {
                throw YAMLFileError("`\(name)` must be whole \(unit).", key: fields.path(name), line: fields.line(name))
            }
            set(&place, Int(value))
        case .profile(_, let set):
            guard let word = try fields.optionalString(name) else { return }
            guard let mode = MonitoringMode(name: word) else {
                let names = MonitoringMode.allCases.map(\.name).joined(separator: " or ")
                throw YAMLFileError("`\(name)` is `\(word)`; it must be \(names).", key: fields.path(name), line: fields.line(name))
            }
            set(&place, mode)
        }
    }

    private static func lastComponent(of key: String) -> Substring {
        key.split(separator: ".").last ?? Substring(key)
    }
}

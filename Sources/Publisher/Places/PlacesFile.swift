import Foundation
import WhereaboutsCore
import Yams

/// Reads the publisher's `--places` file: the same shape as a circle's `places:` in the
/// subscriber's circles file (docs/subscriber.md, "Circles file"), plus the profile to switch to
/// on entering and leaving.
///
/// ```yaml
/// places:
///   - name: Home            # required, unique ignoring case, 1 to 64 characters
///     lat: 52.6638          # required, degrees
///     lon: -8.6267          # required, degrees
///     radius: 100           # required, metres, 1 to 50000
///     dwell: 120            # optional, seconds inside before "enter" (0 to 86400; default --place-dwell)
///     profile: significant  # optional, the profile while inside
///     profileOnLeave: active  # optional, the profile after leaving
///     tst: 1700000000       # optional, the OwnTracks waypoint timestamp sent as wtst (default 0)
/// ```
///
/// A bare list of places (without the `places:` key) is accepted too.
public enum PlacesFile {
    /// The keys a place accepts.
    static let placeKeys = ["name", "lat", "lon", "radius", "dwell", "profile", "profileOnLeave", "tst"]

    /// The places in the file at `path`.
    public static func load(path: String) throws(PlacesFileError) -> [DevicePlace] {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw PlacesFileError("--places \(path) cannot be read: \(error.localizedDescription).")
        }
        return try parse(text)
    }

    /// The places in YAML `text`.
    public static func parse(_ text: String) throws(PlacesFileError) -> [DevicePlace] {
        if let line = YAMLNesting.lineDeeperThanLimit(in: text) {
            throw PlacesFileError("The file nests deeper than \(YAMLNesting.limit) levels.", line: line)
        }
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch {
            throw PlacesFileError("The file is not valid YAML: \(error).")
        }
        guard let root else { throw PlacesFileError("The file is empty; add `places:` with a list of places.") }
        let list: Node
        switch root {
        case .sequence:
            list = root
        case .mapping(let mapping):
            for (key, _) in mapping where key.string != "places" {
                throw PlacesFileError("Unknown key `\(key.string ?? "?")`; the file holds `places:` only.", key: key.string, line: key.mark?.line)
            }
            guard let places = mapping["places"] else {
                throw PlacesFileError("The key `places` is missing; add a list of places.", key: "places", line: root.mark?.line)
            }
            list = places
        default:
            throw PlacesFileError("The file must hold `places:` with a list of places.", line: root.mark?.line)
        }
        guard case .sequence(let items) = list else {
            throw PlacesFileError("`places` must be a list of places (name, lat, lon, radius).", key: "places", line: list.mark?.line)
        }
        var places: [DevicePlace] = []
        var seen: [String: Int] = [:]
        for (index, item) in items.enumerated() {
            let key = "places[\(index)]"
            let place = try readPlace(item, key: key)
            if let first = seen[place.key] {
                throw PlacesFileError(
                    "The place `\(place.name)` appears twice (first at line \(first)); place names are unique, ignoring case.",
                    key: "\(key).name", line: item.mark?.line)
            }
            seen[place.key] = item.mark?.line ?? 0
            places.append(place)
        }
        return places
    }

    private static func readPlace(_ node: Node, key: String) throws(PlacesFileError) -> DevicePlace {
        guard case .mapping(let mapping) = node else {
            throw PlacesFileError("A place must be a mapping with name, lat, lon and radius.", key: key, line: node.mark?.line)
        }
        var fields: [String: Node] = [:]
        for (name, value) in mapping {
            let text = name.string ?? ""
            guard placeKeys.contains(text) else {
                throw PlacesFileError(
                    "Unknown key `\(text)`; allowed keys are \(placeKeys.sorted().joined(separator: ", ")).",
                    key: "\(key).\(text)", line: name.mark?.line)
            }
            fields[text] = value
        }
        guard let nameNode = fields["name"] else {
            throw PlacesFileError("The key `name` is missing.", key: "\(key).name", line: node.mark?.line)
        }
        guard case .scalar(let scalar) = nameNode, !scalar.string.isEmpty, scalar.string.count <= DevicePlace.maxNameLength,
              !scalar.string.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw PlacesFileError(
                "`name` must be 1 to \(DevicePlace.maxNameLength) characters without control characters.",
                key: "\(key).name", line: nameNode.mark?.line)
        }
        let lat = try requiredNumber(fields, "lat", in: key, parent: node, range: -90...90, unit: "degrees")
        let lon = try requiredNumber(fields, "lon", in: key, parent: node, range: -180...180, unit: "degrees")
        let radius = try requiredNumber(fields, "radius", in: key, parent: node, range: 1...DevicePlace.maxRadius, unit: "metres")
        let dwell = try number(fields, "dwell", in: key, parent: node, range: 0...DevicePlace.maxDwell, unit: "seconds", required: false)
        let tst = try number(fields, "tst", in: key, parent: node, range: 0...99_999_999_999, unit: "epoch seconds", required: false)
        if let tst, tst != tst.rounded() {
            throw PlacesFileError("`tst` must be whole epoch seconds.", key: "\(key).tst", line: fields["tst"]?.mark?.line)
        }
        return DevicePlace(
            name: scalar.string, lat: lat, lon: lon, radius: radius, dwell: dwell,
            profile: try profile(fields, "profile", in: key), profileOnLeave: try profile(fields, "profileOnLeave", in: key),
            tst: tst.map { Int($0) } ?? 0, origin: .file)
    }

    private static func profile(_ fields: [String: Node], _ name: String, in key: String) throws(PlacesFileError) -> MonitoringMode? {
        guard let node = fields[name] else { return nil }
        switch node.scalar?.string {
        case "active": return .active
        case "significant": return .significant
        default:
            throw PlacesFileError(
                "`\(name)` is `\(node.scalar?.string ?? "not a word")`; it must be active or significant.",
                key: "\(key).\(name)", line: node.mark?.line)
        }
    }

    /// The number under `name`, within `range`; a missing key is an error that names it.
    private static func requiredNumber(
        _ fields: [String: Node], _ name: String, in key: String, parent: Node, range: ClosedRange<Double>, unit: String
    ) throws(PlacesFileError) -> Double {
        guard let value = try number(fields, name, in: key, parent: parent, range: range, unit: unit, required: false) else {
            throw PlacesFileError("The key `\(name)` is missing.", key: "\(key).\(name)", line: parent.mark?.line)
        }
        return value
    }

    private static func number(
        _ fields: [String: Node], _ name: String, in key: String, parent: Node,
        range: ClosedRange<Double>, unit: String, required: Bool = true
    ) throws(PlacesFileError) -> Double? {
        guard let node = fields[name] else {
            if required { throw PlacesFileError("The key `\(name)` is missing.", key: "\(key).\(name)", line: parent.mark?.line) }
            return nil
        }
        guard case .scalar(let scalar) = node, let value = Double(scalar.string), value.isFinite else {
            throw PlacesFileError("`\(name)` must be a number (\(unit)).", key: "\(key).\(name)", line: node.mark?.line)
        }
        guard range.contains(value) else {
            throw PlacesFileError(
                "`\(name)` is \(scalar.string) \(unit); it must lie between \(format(range.lowerBound)) and \(format(range.upperBound)).",
                key: "\(key).\(name)", line: node.mark?.line)
        }
        return value
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}

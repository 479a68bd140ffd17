#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SystemSupport
import WhereaboutsCore
import WhereaboutsYAML

/// Reads the publisher's `--places` file: the same shape as a circle's `places:` in the
/// subscriber's circles file (docs/subscriber.md, "Circles file"), plus the profile to switch to
/// on entering and leaving; one validator reads both (`PlaceYAML`).
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
package enum PlacesFile {
    /// The keys a place takes in this file, for `--help`: "name, lat, lon, radius; optional dwell,
    /// ..." (from ``Place/attributes``).
    package static var keySummary: String { PlaceYAML.Use.device.keySummary }

    /// The places in the file at `path`.
    package static func load(path: String) throws(PlacesFileError) -> [Place] {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw PlacesFileError("--places \(path) cannot be read: \(fileErrorReason(error)).")
        }
        return try parse(text)
    }

    /// The places in YAML `text`.
    package static func parse(_ text: String) throws(PlacesFileError) -> [Place] {
        if let line = YAMLNesting.lineDeeperThanLimit(in: text) {
            throw PlacesFileError("The file nests deeper than \(YAMLNesting.limit) levels.", line: line)
        }
        let root: YAMLNode?
        do {
            root = try YAMLDocument.parse(text)
        } catch {
            throw PlacesFileError("The file is not valid YAML at column \(error.column): \(error.message).", line: error.line)
        }
        guard let root else { throw PlacesFileError("The file is empty; add `places:` with a list of places.") }
        let list: YAMLNode
        switch root {
        case .sequence:
            list = root
        case .mapping(let mapping, _):
            for pair in mapping where pair.key.text != "places" {
                throw PlacesFileError(
                    "Unknown key `\(pair.key.text ?? "?")`; the file holds `places:` only.", key: pair.key.text, line: pair.key.mark.line)
            }
            if case let (repeated, first)? = root.repeatedKey {
                throw PlacesFileError(
                    "The key `places` appears twice (first at line \(first.line)); put every place in one list.", key: "places",
                    line: repeated.mark.line)
            }
            guard let places = root["places"] else {
                throw PlacesFileError("The key `places` is missing; add a list of places.", key: "places", line: root.mark.line)
            }
            list = places
        default:
            throw PlacesFileError("The file must hold `places:` with a list of places.", line: root.mark.line)
        }
        return try PlaceYAML.places(list, key: "places", use: .device)
    }
}

/// Why a `--places` file could not be used: a message naming the key (`places[1].radius`) and
/// line to fix.
package typealias PlacesFileError = YAMLFileError

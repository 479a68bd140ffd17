import Foundation
import Testing
@testable import WhereaboutsCore
import WhereaboutsYAML

/// The one place validator, as both files use it: the circles file's places (``PlaceYAML/Use/circle``)
/// and the publisher's `--places` file (``PlaceYAML/Use/device``).
struct PlaceYAMLTests {
    static func read(_ yaml: String, use: PlaceYAML.Use, owner: String? = nil) throws(YAMLFileError) -> [Place] {
        guard let node = try? YAMLDocument.parse(yaml) else { throw YAMLFileError("not YAML in the test") }
        return try PlaceYAML.places(node, key: "places", use: use, owner: owner)
    }

    @Test("The same place reads the same in both files; only the publisher's places are waypoints")
    func sameShape() throws {
        let yaml = "- {name: Home, lat: 52.5, lon: -8.5, radius: 100, dwell: 30}\n"
        let circle = try Self.read(yaml, use: .circle)
        let device = try Self.read(yaml, use: .device)
        #expect(circle == [Place(name: "Home", lat: 52.5, lon: -8.5, radius: 100, dwell: 30)])
        #expect(device[0].sameGeometry(as: circle[0]))
        #expect(circle[0].waypoint == nil && device[0].origin == .file && device[0].tst == 0)
    }

    @Test("Every rule gives the same message, key and line in both files", arguments: [
        ("- {name: Home, lat: 95, lon: 1, radius: 10}\n", "places[0].lat", "between -90 and 90"),
        ("- {name: Home, lat: 1, lon: 1}\n", "places[0].radius", "The key `radius` is missing."),
        ("- {name: Home, lat: 1, lon: 1, radius: 0}\n", "places[0].radius", "between 1 and 50000"),
        ("- {name: Home, lat: 1, lon: 1, radius: .nan}\n", "places[0].radius", "must be a number"),
        ("- {name: Home, lat: 1, lon: 1, radius: 10, dwell: 90000}\n", "places[0].dwell", "between 0 and 86400"),
        ("- {name: \"Ho\\u0007me\", lat: 1, lon: 1, radius: 10}\n", "places[0].name", "without control characters"),
        ("- {name: Home, lat: 1, lon: 1, radius: 10, colour: red}\n", "places[0].colour", "Unknown key `colour`"),
        ("- {name: A, lat: 1, lon: 1, radius: 10}\n- {name: a, lat: 2, lon: 2, radius: 10}\n", "places[1].name", "appears twice"),
        ("- just a name\n", "places[0]", "Expected a mapping"),
    ])
    func sameErrors(yaml: String, key: String, says: String) {
        var messages: [String] = []
        for use in [PlaceYAML.Use.circle, .device] {
            do throws(YAMLFileError) {
                _ = try Self.read(yaml, use: use)
                Issue.record("accepted: \(yaml)")
            } catch {
                #expect(error.key == key)
                #expect(error.line != nil)
                #expect(error.message.contains(says), "\(error.message)")
                messages.append(error.description)
            }
        }
        // The messages differ only in the list of allowed keys (the device's has its own ones).
        func allowed(_ use: PlaceYAML.Use) -> String { use.attributes.map(\.key).sorted().joined(separator: ", ") }
        #expect(messages.count == 2 && messages[0] == messages[1].replacingOccurrences(of: allowed(.device), with: allowed(.circle)))
    }

    @Test("The publisher-only keys are refused in a circle's places", arguments: ["profile: significant", "profileOnLeave: active", "tst: 1700000000"])
    func publisherOnlyKeys(entry: String) throws {
        let yaml = "- {name: Home, lat: 1, lon: 1, radius: 10, \(entry)}\n"
        #expect(throws: YAMLFileError.self) { try Self.read(yaml, use: .circle) }
        let device = try Self.read(yaml, use: .device)
        #expect(device.count == 1)
    }

    @Test("Every attribute of Place.attributes is read from the publisher's file, survives JSON, and the circle-only reader refuses the device-only ones")
    func everyAttribute() throws {
        // The largest value each attribute takes, so that a range check that is off shows too.
        func entry(_ attribute: PlaceAttribute) -> String {
            switch attribute.value {
            case .name(let maxLength, _, _): "\(attribute.key): \(String(repeating: "h", count: maxLength))"
            case .number(let range, _, _, _): "\(attribute.key): \(range.upperBound)"
            case .wholeNumber(let range, _, _, _): "\(attribute.key): \(Int(range.upperBound))"
            case .profile: "\(attribute.key): significant"
            }
        }
        func isSet(_ attribute: PlaceAttribute, in place: Place) -> Bool {
            switch attribute.value {
            case .name(_, let get, _): !get(place).isEmpty
            case .number(_, _, let get, _): get(place) != nil
            case .wholeNumber(_, _, let get, _): get(place) != nil
            case .profile(let get, _): get(place) != nil
            }
        }
        let all = "- {\(Place.attributes.map(entry).joined(separator: ", "))}\n"
        let place = try #require(try Self.read(all, use: .device).first)
        for attribute in Place.attributes {
            #expect(isSet(attribute, in: place), "\(attribute.key) was not read")
        }
        let json = try JSONEncoder().encode(place)
        #expect(try JSONDecoder().decode(Place.self, from: json) == place)
        let keys = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any]).keys
        #expect(Set(Place.attributes.map(\.key)).isSubset(of: keys))

        for attribute in Place.attributes where attribute.scope == .devicePlace {
            let yaml = "- {name: Home, lat: 1, lon: 1, radius: 10, \(entry(attribute))}\n"
            #expect(throws: YAMLFileError.self, "\(attribute.key) in a circle's place") { try Self.read(yaml, use: .circle) }
        }
        // The help's key list: the required keys, then the optional ones, each file its own.
        for use in [PlaceYAML.Use.circle, .device] {
            let required = use.attributes.filter(\.isRequired).map(\.key)
            let optional = use.attributes.filter { !$0.isRequired }.map(\.key)
            #expect(use.keySummary == "\(required.joined(separator: ", ")); optional \(optional.joined(separator: ", "))")
        }
        #expect(PlaceYAML.Use.circle.keySummary.hasPrefix("name, lat, lon, radius; optional dwell"))
    }

    @Test("The duplicate-name message names the owner when given")
    func owner() {
        #expect {
            try Self.read("- {name: A, lat: 1, lon: 1, radius: 10}\n- {name: A, lat: 1, lon: 1, radius: 10}\n", use: .circle, owner: "circle `family`")
        } throws: { error in
            "\(error)".contains("appears twice in circle `family`")
        }
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The waypoints of one `setWaypoints` command, checked one by one: the valid ones in ``items``,
/// each invalid one in ``rejected`` with its reason (counted and logged by the publisher, the
/// others still applied).
///
/// Accepted shapes, as the OwnTracks apps accept them (iOS `performSetWaypoints`, owntracks/ios
/// OwnTracks/OwnTracks/OwnTracksAppDelegate.m; Android `CommandAction.SET_WAYPOINTS` with a
/// `MessageWaypoints`): `"waypoints":{"_type":"waypoints","waypoints":[…]}`, the same object under
/// `"payload"`, or `"waypoints":[…]`. Each waypoint: `desc` (name, 1 to 64 characters), `lat`,
/// `lon` (degrees; numbers, or numeric strings as older apps wrote them), `rad` (metres, 1 to
/// 50,000), `tst` (epoch seconds, its identity; the receive time when absent), optional `rid`.
public struct WaypointBatch: Sendable, Hashable {
    /// One valid waypoint.
    public struct Item: Sendable, Hashable {
        /// The name (`desc`).
        public var name: String
        /// Latitude, degrees.
        public var lat: Double
        /// Longitude, degrees.
        public var lon: Double
        /// Radius, metres.
        public var radius: Double
        /// The waypoint's `tst`, when it had one.
        public var tst: Int?
        /// The region id, when it had one.
        public var rid: String?
        /// Its position in the command's list, from 0.
        public var index: Int

        /// Creates an item from checked values.
        public init(name: String, lat: Double, lon: Double, radius: Double, tst: Int?, rid: String?, index: Int = 0) {
            self.index = index
            self.name = name
            self.lat = lat
            self.lon = lon
            self.radius = radius
            self.tst = tst
            self.rid = rid
        }

        /// The place this waypoint defines; a missing `tst` becomes `now`.
        public func place(now: Int) -> Place {
            Place(name: name, lat: lat, lon: lon, radius: radius, waypoint: Place.Waypoint(tst: tst ?? now, rid: rid, origin: .command))
        }
    }

    /// A waypoint that was refused.
    public struct Rejection: Sendable, Hashable, CustomStringConvertible {
        /// Its position in the command's list, from 0.
        public var index: Int
        /// Its `desc`, when it had a readable one.
        public var name: String?
        /// Why, as a sentence.
        public var reason: String

        /// Creates a rejection.
        public init(index: Int, name: String?, reason: String) {
            self.index = index
            self.name = name
            self.reason = reason
        }

        /// "waypoint 2 (Home): reason".
        public var description: String {
            "waypoint \(index)\(name.map { " (\($0))" } ?? ""): \(reason)"
        }
    }

    /// The valid waypoints, in command order (a later one of the same name replaces an earlier one).
    public var items: [Item]
    /// The refused ones.
    public var rejected: [Rejection]

    /// The most waypoints one command may carry.
    public static let maxCount = 100

    /// Parses the waypoints of a `setWaypoints` payload.
    ///
    /// - Throws: ``CommandMessageError/missingWaypoints`` when the command carries no waypoint list.
    init(payload: Data) throws(CommandMessageError) {
        guard let envelope = try? JSONDecoder().decode(Envelope.self, from: payload),
              let list = envelope.waypoints?.list ?? envelope.payload?.list
        else { throw .missingWaypoints }
        var items: [Item] = []
        var rejected: [Rejection] = []
        for (index, raw) in list.enumerated() {
            if index >= Self.maxCount {
                rejected.append(Rejection(index: index, name: raw.desc, reason: "more than \(Self.maxCount) waypoints in one command"))
                continue
            }
            switch raw.validated() {
            case .success(var item):
                item.index = index
                items.removeAll { $0.name.lowercased() == item.name.lowercased() }
                items.append(item)
            case .failure(let problem):
                rejected.append(Rejection(index: index, name: raw.desc, reason: problem.reason))
            }
        }
        self.items = items
        self.rejected = rejected
    }
}

extension WaypointBatch {
    /// A reason a waypoint was refused.
    private struct Problem: Error {
        var reason: String
    }

    /// `waypoints` or `payload`: an object with a `waypoints` list, or the list itself.
    private struct Envelope: Decodable {
        var waypoints: ListField?
        var payload: ListField?
    }

    private struct ListField: Decodable {
        var list: [RawWaypoint]?

        private struct Object: Decodable { var waypoints: [RawWaypoint] }

        init(from decoder: any Decoder) throws {
            if let array = try? [RawWaypoint](from: decoder) {
                list = array
            } else {
                list = (try? Object(from: decoder))?.waypoints
            }
        }
    }

    /// One waypoint as sent: every field read leniently, so that one bad waypoint does not spoil
    /// the others; ``validated()`` says what is wrong.
    private struct RawWaypoint: Decodable {
        var isObject = true
        var type: String?
        var desc: String?
        var lat: Double?
        var lon: Double?
        var rad: Double?
        var tst: Double?
        var rid: String?
        var present: Set<String> = []

        private enum Key: String, CodingKey { case type = "_type", desc, lat, lon, rad, tst, rid }

        init(from decoder: any Decoder) throws {
            guard let container = try? decoder.container(keyedBy: Key.self) else {
                isObject = false
                return
            }
            present = Set(container.allKeys.map(\.rawValue))
            type = try? container.decode(String.self, forKey: .type)
            desc = try? container.decode(String.self, forKey: .desc)
            lat = Self.number(container, .lat)
            lon = Self.number(container, .lon)
            rad = Self.number(container, .rad)
            tst = Self.number(container, .tst)
            rid = try? container.decode(String.self, forKey: .rid)
        }

        /// A JSON number, or a string holding one (the booklet's examples quote them).
        private static func number(_ container: KeyedDecodingContainer<Key>, _ key: Key) -> Double? {
            if let value = try? container.decode(Double.self, forKey: key) { return value }
            if let text = try? container.decode(String.self, forKey: key) { return Double(text.trimmingSpaces()) }
            return nil
        }

        func validated() -> Result<Item, Problem> {
            guard isObject else { return .failure(Problem(reason: "not a JSON object")) }
            if let type, type != "waypoint" { return .failure(Problem(reason: "_type is \"\(type)\", not \"waypoint\"")) }
            guard let desc else { return .failure(Problem(reason: "no string desc (the name)")) }
            let name = desc.trimmingSpaces()
            guard PlaceAttribute.isValidName(name, maxLength: Place.maxNameLength) else {
                return .failure(Problem(reason: "desc must be 1 to \(Place.maxNameLength) characters without control characters"))
            }
            guard let lat, lat.isFinite, (-90...90).contains(lat) else {
                return .failure(Problem(reason: present.contains("lat") ? "lat must be a number from -90 to 90" : "no lat"))
            }
            guard let lon, lon.isFinite, (-180...180).contains(lon) else {
                return .failure(Problem(reason: present.contains("lon") ? "lon must be a number from -180 to 180" : "no lon"))
            }
            guard let rad, rad.isFinite, rad > 0 else {
                return .failure(Problem(reason: "no radius above 0 (rad): a waypoint without one is no region to enter or leave"))
            }
            guard rad <= Place.maxRadius else {
                return .failure(Problem(reason: "rad \(rad) is more than \(Int(Place.maxRadius)) m"))
            }
            var stamp: Int?
            if present.contains("tst") {
                guard let tst, tst.isFinite, tst >= 1, tst < 1e11, tst == tst.rounded() else {
                    return .failure(Problem(reason: "tst must be whole epoch seconds"))
                }
                stamp = Int(tst)
            }
            if let rid, rid.isEmpty || rid.count > 64 {
                return .failure(Problem(reason: "rid must be 1 to 64 characters"))
            }
            return .success(Item(name: name, lat: lat, lon: lon, radius: rad, tst: stamp, rid: rid))
        }
    }
}

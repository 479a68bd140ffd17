import Dashboard
import Foundation

/// Circle views for the tests, built from the circle view contract's JSON (TEAM-NOTES) so they
/// decode into whichever `CircleView` the dashboard is built against.
enum Fixtures {
    /// A fix in contract form.
    struct Fix {
        var tst: Int
        var lat: Double
        var lon: Double
        var acc: Int = 8
        var ve: Double? = nil
        var vn: Double? = nil
        var ms: Int? = nil

        var json: [String: Any] {
            var object: [String: Any] = ["tst": tst, "lat": lat, "lon": lon, "acc": acc, "t": "t", "batt": 76]
            if let ve, let vn {
                object["ve"] = ve
                object["vn"] = vn
            }
            if let ms { object["ms"] = ms }
            return object
        }
    }

    /// A member in contract form.
    static func member(
        _ user: String, device: String = "phone", name: String, color: String = "#e6194b",
        status: String = "online", fix: Fix?, generatedAt: Double, trail: [(Int, Double, Double)] = []
    ) -> [String: Any] {
        var object: [String: Any] = [
            "user": user, "device": device, "name": name, "color": color,
            "tid": String(user.prefix(2)), "status": status, "statusSince": generatedAt - 600,
            "trail": trail.map { ["tst": $0.0, "lat": $0.1, "lon": $0.2] },
        ]
        if let fix {
            object["fix"] = fix.json
            object["age"] = generatedAt - Double(fix.tst)
            if let ve = fix.ve, let vn = fix.vn {
                object["speed"] = (ve * ve + vn * vn).squareRoot()
                object["course"] = (atan2(ve, vn) * 180 / .pi + 360).truncatingRemainder(dividingBy: 360)
            }
            object["display"] = ["lat": fix.lat, "lon": fix.lon, "extrapolated": false]
        } else {
            object["fix"] = NSNull()
        }
        return object
    }

    /// A view decoded from contract JSON.
    static func view(id: String, name: String, generatedAt: Double, members: [[String: Any]]) throws -> CircleView {
        let object: [String: Any] = [
            "_type": "view", "circle": ["id": id, "name": name], "generatedAt": generatedAt, "members": members,
        ]
        return try JSONDecoder().decode(CircleView.self, from: JSONSerialization.data(withJSONObject: object))
    }

    /// The family circle around Limerick: Alice online, Bob stale, Carol offline, Dave never heard.
    static func family(generatedAt: Double, aliceAt alice: Fix? = nil) throws -> CircleView {
        let now = Int(generatedAt)
        let aliceFix = alice ?? Fix(tst: now - 3, lat: 52.6638, lon: -8.6267)
        return try view(id: "family", name: "Family", generatedAt: generatedAt, members: [
            member("alice", name: "Alice", color: "#e6194b", fix: aliceFix, generatedAt: generatedAt,
                   trail: [(now - 60, 52.6610, -8.6330), (now - 40, 52.6620, -8.6310), (now - 20, 52.6630, -8.6290)]),
            member("bob", device: "car", name: "Bob", color: "#3cb44b", status: "stale",
                   fix: Fix(tst: now - 700, lat: 52.6680, lon: -8.6200), generatedAt: generatedAt),
            member("carol", name: "Carol", color: "#4363d8", status: "offline",
                   fix: Fix(tst: now - 4000, lat: 52.6600, lon: -8.6180), generatedAt: generatedAt),
            member("dave", name: "Dave", color: "#f58231", status: "unknown", fix: nil, generatedAt: generatedAt),
        ])
    }

    /// The team circle: Alice (again) and Erin, both online.
    static func team(generatedAt: Double) throws -> CircleView {
        let now = Int(generatedAt)
        return try view(id: "team", name: "Field team", generatedAt: generatedAt, members: [
            member("alice", name: "Alice", color: "#e6194b", fix: Fix(tst: now - 3, lat: 52.6638, lon: -8.6267), generatedAt: generatedAt),
            member("erin", device: "van", name: "Erin", color: "#911eb4",
                   fix: Fix(tst: now - 1, lat: 52.6700, lon: -8.6400, ve: 8, vn: 2, ms: 60), generatedAt: generatedAt),
        ])
    }

    static var now: Double { Date().timeIntervalSince1970 }
}

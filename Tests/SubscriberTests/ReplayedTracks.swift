import Subscriber
import Foundation
import Logging
import PositionSources
import WhereaboutsCore
import WhereaboutsMQTT
import WhereaboutsTestSupport

/// Recorded tracks from `examples/tracks`, turned into OwnTracks messages by Core as the publisher
/// would send them, re-timed to end just before now (a replay as live data).
enum ReplayedTracks {
    static func messages(for member: MemberID, every stride: Int = 10, endingAt end: Int) throws -> [LocationMessage] {
        let url = TestPaths.packageRoot.appendingPathComponent("examples/tracks/\(member.user)-\(member.device).gpx")
        let track = try GPXFile.read(contentsOf: url, logger: .test("gpx"))
        let fixes = Swift.stride(from: 0, to: track.fixes.count, by: stride).map { track.fixes[$0] }
        return fixes.enumerated().map { index, fix in
            var retimed = fix
            retimed.time = Date(timeIntervalSince1970: Double(end - (fixes.count - 1 - index) * 5))
            return LocationMessage(report: Report(fix: retimed, trigger: .moving), tid: String(member.user.prefix(2)))
        }
    }

    /// Publishes `messages` for `member` at QoS 1, retained like the publisher does.
    static func publish(_ messages: [LocationMessage], as member: MemberID, with client: MQTTClient, retain: Bool = true) async throws {
        let encoder = JSONEncoder()
        for message in messages {
            try await client.publish(to: "owntracks/\(member.user)/\(member.device)", payload: try encoder.encode(message),
                                     qos: .atLeastOnce, retain: retain)
        }
    }
}

extension MQTTClient {
    /// A connected plain client for `broker`.
    static func connected(to broker: Broker, clientID: String = "pub-\(UUID().uuidString.prefix(8))",
                          credentials: MQTTConfiguration.Credentials? = nil) async throws -> MQTTClient {
        let client = MQTTClient(configuration: broker.clientConfiguration(clientID: clientID, credentials: credentials),
                                logger: .test("pub"))
        try await client.connect()
        return client
    }
}

import Subscriber
import Foundation
import Logging
import WhereaboutsCore
import WhereaboutsMQTT

/// Measures the in-process ingest pipeline alone (route, decode, validate, apply), without MQTT.
enum PipelineBenchmark {
    static func run(messages: Int, members: Int, logger: Logger) async -> Double {
        let circles = (0..<(members / 10)).map { c in
            Circle(id: "c\(c)", name: "C\(c)", members: (0..<10).map { Member(user: "u\(c * 10 + $0)", device: "d") })
        }
        let store = CircleViewStore(circles: CirclesFile(circles: circles), logger: logger)
        let ingestor = Ingestor(store: store, router: TopicRouter(), settings: ViewSettings())
        let t0 = Int(Date().timeIntervalSince1970) - messages
        let encoder = JSONEncoder()
        let stream = (0..<messages).map { i in
            let m = i % members
            let message = LocationMessage(tid: "ab", tst: t0 + i / members, lat: 52 + Double(i) * 1e-7, lon: -8.6, acc: 5,
                                          vel: 36, cog: 90, batt: 80, t: "t", ve: 10, vn: 0, ms: 60)
            return MQTTMessage(topic: "owntracks/u\(m)/d", payload: try! encoder.encode(message), retained: false)
        }
        let start = ContinuousClock.now
        let now = Date()
        for message in stream { await ingestor.handle(message, at: now) }
        let elapsed = ContinuousClock.now - start
        let accepted = await store.statistics().accepted
        precondition(accepted == messages, "accepted \(accepted) of \(messages)")
        return Double(messages) / elapsed.seconds
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

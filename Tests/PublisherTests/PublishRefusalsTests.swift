import Foundation
import Logging
import Prometheus
import Testing
import WhereaboutsMQTT
import WhereaboutsTestSupport
@testable import Publisher

/// The drainer's handling of refused reports, without I/O: counting, logging and pacing.
@Suite("Publish refusals")
struct PublishRefusalsTests {
    static let refused = MQTTError.publishRefused(topic: "owntracks/Eve/phone", reason: .notAuthorized, username: "Eve")

    @Test("Refusals are counted by reason, logged once per window with topic and account, and paced by doubling pauses up to 60 s; a clean window resets the pace")
    func paced() {
        let registry = PrometheusCollectorRegistry()
        let (logger, handler) = Logger.capturing(level: .info)
        var refusals = PublishRefusals(
            metrics: PublisherMetrics(factory: PrometheusMetricsFactory(registry: registry)), logger: logger, retryDelay: .seconds(1))
        let window = [
            PublishWindow.Sent(id: 1, retained: false, error: Self.refused),
            PublishWindow.Sent(id: 2, retained: true, error: Self.refused),
        ]
        let pauses = (1...9).map { _ in refusals.review(window) }
        #expect(pauses == [1, 2, 4, 8, 16, 32, 60, 60, 60].map { Duration.seconds($0) })
        #expect(refusals.review([PublishWindow.Sent(id: 1, retained: false, error: nil)]) == .seconds(1))
        #expect(refusals.review(window) == .seconds(1), "the pace starts over after a clean window")
        // Another failure is not a refusal: the ordinary retry delay, nothing counted.
        #expect(refusals.review([PublishWindow.Sent(id: 1, retained: false, error: MQTTError.notConnected(mayStillBeDelivered: false))]) == .seconds(1))

        #expect(String(decoding: registry.emitToBuffer(), as: UTF8.self).contains(#"whereabouts_pub_publish_refused_total{reason="not_authorized"} 20"#))
        let errors = handler.entries.filter { $0.level == .error }
        #expect(errors.count == 10, "one line per refused window")
        let first = errors[0]
        #expect(first.message.description.hasPrefix("The broker's ACL does not let user 'Eve' publish to 'owntracks/Eve/phone'"))
        #expect(first.message.description.contains("whereabouts-sub acl") && first.message.description.contains("whereabouts-sub dynsec"))
        #expect(first.metadata["whereabouts.mqtt.user"]?.description == "Eve")
        #expect(first.metadata["whereabouts.topic"]?.description == "owntracks/Eve/phone")
    }

    @Test("Other reasons say what they are and what to do")
    func otherReasons() {
        let message = PublishRefusals.message(topic: "owntracks/ann/phone", reason: .quotaExceeded, username: nil)
        #expect(message.contains("an anonymous client") && message.contains("quota exceeded (0x97)") && message.contains("raise it"))
    }
}

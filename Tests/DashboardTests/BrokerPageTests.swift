import Subscriber
import Dashboard
import Foundation
import Logging
import ServiceLifecycle
import Testing
import WhereaboutsCore
import WhereaboutsMQTT
import WhereaboutsTestSupport

/// The whole path on one machine: a real mosquitto, the subscriber and the dashboard in one
/// service group as `whereabouts-sub --http-port` runs them, an MQTT publisher, and the page in
/// real headless Chromium on a phone-sized screen.
@Suite("Dashboard over a real broker", .serialized, .enabled(if: HeadlessChromium.isInstalled))
struct BrokerPageTests {
    @Test("Fixes published over mosquitto reach the page: the member appears, moves, and turns offline on its will")
    func publishToPage() async throws {
        let broker = try await Broker.start()
        do {
            try await withTimeout(.seconds(120), "the broker-to-page round trip") {
                try await Self.run(broker: broker)
            }
        } catch {
            Issue.record("mosquitto log:\n\(broker.logTail())")
            await broker.stop()
            throw error
        }
        await broker.stop()
    }

    private static func run(broker: Broker) async throws {
        let logger = Logger.test("dashboard", level: .warning)
        let services = try await SubscriberDashboardGroup.connect(
            broker: broker, circles: Fixtures.circles, clientID: "whereabouts-sub-dashboard-test", logger: logger)
        let publisher = MQTTClient(configuration: broker.clientConfiguration(clientID: "alice-phone"), logger: logger)

        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await services.group.run() }
            let port = try await services.port()
            try await publisher.connect()

            try await HeadlessChromium.withPage(width: 390, height: 844, mobile: true) { page in
                try await page.navigate(to: "http://127.0.0.1:\(port)/#family")
                try await page.waitFor("document.body.dataset.connection === 'open'")

                // The publisher's first fix, as whereabouts-pub sends it: retained, QoS 1.
                let now = Int(Date().timeIntervalSince1970)
                try await Self.publish(publisher, Fixtures.location("al", tst: now - 1, lat: 52.663800, lon: -8.626700))
                try await page.waitFor(PageTests.markerAt("alice", lat: 52.6638, lon: -8.6267))
                #expect(try await page.value(String.self, "document.querySelector('#map .member[data-user=alice]').dataset.status") == "online")

                try await Self.publish(publisher, Fixtures.location("al", tst: now, lat: 52.670200, lon: -8.611100))
                try await page.waitFor(PageTests.markerAt("alice", lat: 52.6702, lon: -8.6111))

                // The broker publishes the device's last will when it drops off: offline.
                try await publisher.publish(to: "owntracks/alice/phone", payload: #"{"_type":"lwt","tst":\#(now - 60)}"#)
                try await page.waitFor("document.querySelector('#map .member[data-user=alice]')?.dataset.status === 'offline'")
                let row = try await page.value(String.self, "document.querySelector('#members li[data-user=alice]').className")
                #expect(row == "offline")
            }
            await publisher.disconnect()
            await services.group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        await services.client.disconnect()
    }

    private static func publish(_ client: MQTTClient, _ message: LocationMessage) async throws {
        try await client.publish(to: "owntracks/alice/phone", payload: JSONEncoder().encode(message), qos: .atLeastOnce, retain: true)
    }
}

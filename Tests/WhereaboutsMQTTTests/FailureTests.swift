import Foundation
import Logging
import Testing
import WhereaboutsMQTT
import WhereaboutsTestSupport

@Suite("Connection failures give typed, actionable errors")
struct FailureTests {
    @Test("A bad password is refused as bad credentials", arguments: [MQTTConfiguration.ProtocolVersion.v311, .v5])
    func badPassword(version: MQTTConfiguration.ProtocolVersion) async throws {
        let broker = try await Broker.start(Broker.Options(allowAnonymous: false, users: ["ann": "right"]))
        var configuration = broker.clientConfiguration(clientID: "ann-phone", credentials: .init(username: "ann", password: "wrong"))
        configuration.protocolVersion = version
        let client = MQTTClient(configuration: configuration, logger: .test())
        await #expect(throws: MQTTError.connectionRefused(.badCredentials)) { try await client.connect() }
        #expect(client.state == .disconnected(.failed(.connectionRefused(.badCredentials))))

        configuration.credentials = .init(username: "ann", password: "right")
        let good = MQTTClient(configuration: configuration, logger: .test())
        try await good.connect()
        #expect(good.state.isConnected)
        await good.disconnect()
        await broker.stop()
    }

    @Test("Anonymous access to a broker that forbids it is refused as not authorised")
    func anonymousRefused() async throws {
        let broker = try await Broker.start(Broker.Options(allowAnonymous: false, users: ["ann": "pw"]))
        let client = broker.client("anon")
        await #expect(throws: MQTTError.connectionRefused(.notAuthorized)) { try await client.connect() }
        await broker.stop()
    }

    @Test("An unknown host name is a DNS failure")
    func dnsFailure() async throws {
        let client = MQTTClient(configuration: MQTTConfiguration(host: "no-such-broker.invalid", port: 1883), logger: .test())
        let error = try await #require(throws: MQTTError.self) { try await client.connect() }
        guard case .dnsFailure(let host, _) = error else {
            Issue.record("expected a DNS failure, got \(error)")
            return
        }
        #expect(host == "no-such-broker.invalid")
        #expect(error.description.contains("could not be resolved"))
    }

    @Test("A closed port is a connection failure naming host and port")
    func connectionRefused() async throws {
        let port = try FreePort.find()
        let client = MQTTClient(configuration: MQTTConfiguration(port: port), logger: .test())
        let error = try await #require(throws: MQTTError.self) { try await client.connect() }
        guard case .connectionFailed(let host, let failedPort, _) = error else {
            Issue.record("expected a connection failure, got \(error)")
            return
        }
        #expect(host == "127.0.0.1" && failedPort == port)
    }

    @Test("Publishing against the ACL is refused with MQTT 5's reason code as a typed error naming topic and user; MQTT 3.1.1 cannot tell")
    func aclDenied() async throws {
        let broker = try await Broker.start(
            Broker.Options(
                allowAnonymous: false, users: ["ann": "pw"],
                acl: "user ann\ntopic readwrite owntracks/ann/#\n"))
        let client = broker.client("ann", credentials: .init(username: "ann", password: "pw")) { $0.protocolVersion = .v5 }
        try await client.withConnection { client in
            try await client.publish(to: "owntracks/ann/phone", payload: "mine", qos: .atLeastOnce)
            let error = try await #require(throws: MQTTError.self) {
                try await client.publish(to: "owntracks/bob/phone", payload: "not mine", qos: .atLeastOnce)
            }
            #expect(error == .publishRefused(topic: "owntracks/bob/phone", reason: .notAuthorized, username: "ann"))
            #expect(error.description.contains("'owntracks/bob/phone' by user 'ann': not authorized (0x87)"))
            #expect(error.description.contains("ACL"))
            #expect(!error.mayStillBeDelivered)
            // QoS 2: the refusal comes in PUBREC.
            await #expect(throws: MQTTError.publishRefused(topic: "owntracks/bob/phone", reason: .notAuthorized, username: "ann")) {
                try await client.publish(to: "owntracks/bob/phone", payload: "not mine", qos: .exactlyOnce)
            }
            // The connection stays usable.
            try await client.publish(to: "owntracks/ann/phone", payload: "mine again", qos: .atLeastOnce)
        }
        // The same denied publish over MQTT 3.1.1 is acknowledged as if delivered: nothing to see.
        let old = broker.client("ann-311", credentials: .init(username: "ann", password: "pw")) { $0.protocolVersion = .v311 }
        try await old.withConnection { client in
            try await client.publish(to: "owntracks/bob/phone", payload: "silently dropped", qos: .atLeastOnce)
        }
        await broker.stop()
    }

    @Test("A reason code has a metric name, a readable description and advice")
    func reasonCodes() {
        #expect(MQTTReasonCode.notAuthorized.name == "not_authorized")
        #expect(MQTTReasonCode.quotaExceeded.description == "quota exceeded (0x97)")
        #expect(MQTTReasonCode.payloadFormatInvalid.rawValue == 0x99)
        #expect(MQTTReasonCode(rawValue: 0x9A).name == "code_0x9a")
        #expect(MQTTReasonCode(rawValue: 0x9A).description == "reason 0x9a")
        #expect(MQTTReasonCode.notAuthorized.advice.contains("ACL"))
    }

    @Test("A broker that accepts TCP but never answers CONNECT gives a connect timeout")
    func connectTimeout() async throws {
        let broker = try await Broker.start()
        await broker.pause()
        let client = broker.client("hung") { $0.connectTimeout = .milliseconds(300) }
        await #expect(throws: MQTTError.timedOut(.connect, after: .milliseconds(300), mayStillBeDelivered: false)) {
            try await client.connect()
        }
        await broker.resume()
        await broker.stop()
    }

    @Test("Operations time out with a bounded wait, and say whether the message may still arrive")
    func publishTimeoutWhileBrokerFrozen() async throws {
        let broker = try await Broker.start()
        let client = broker.client("frozen")
        try await client.connect()
        await broker.pause()
        let error = try await #require(throws: MQTTError.self) {
            try await client.publish(to: "t", payload: "x", qos: .atLeastOnce, timeout: .milliseconds(300))
        }
        #expect(error == .timedOut(.publish, after: .milliseconds(300), mayStillBeDelivered: true))
        #expect(error.mayStillBeDelivered)
        await broker.resume()
        await client.disconnect()
        await broker.stop()
    }
}

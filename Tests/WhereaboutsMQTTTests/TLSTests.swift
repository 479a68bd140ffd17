import Foundation
import Logging
import Testing
import WhereaboutsMQTT
import WhereaboutsTestSupport

@Suite("TLS against a broker with a throwaway CA")
struct TLSTests {
    @Test("TLS with the right CA connects and carries messages; peer and host name are verified", arguments: [MQTTConfiguration.ProtocolVersion.v311, .v5])
    func rightCA(version: MQTTConfiguration.ProtocolVersion) async throws {
        let certificates = try await TestCertificates.make()
        let broker = try await Broker.start(Broker.Options(tls: certificates))
        let tls = MQTTConfiguration.TLS(caFile: certificates.caCertificate.path)
        let client = broker.client("tls", tls: tls) { $0.protocolVersion = version }
        try await client.withConnection { client in
            let messages = client.messages
            try await client.subscribe(to: "secure/#", qos: .atLeastOnce)
            try await client.publish(to: "secure/a", payload: "over TLS", qos: .atLeastOnce)
            #expect(try await messages.next().payloadString == "over TLS")
        }
        await broker.stop()
    }

    @Test("TLS with a CA that did not sign the broker's certificate fails as a TLS failure")
    func wrongCA() async throws {
        let certificates = try await TestCertificates.make()
        let other = try await TestCertificates.make()
        let broker = try await Broker.start(Broker.Options(tls: certificates))
        let tls = MQTTConfiguration.TLS(caFile: other.caCertificate.path)
        let client = broker.client("tls-wrong", tls: tls)
        let error = try await #require(throws: MQTTError.self) { try await client.connect() }
        guard case .tlsFailure(let detail) = error else {
            Issue.record("expected a TLS failure, got \(error)")
            return
        }
        #expect(detail.contains("certificate verify failed"))
        #expect(error.description.contains("CA file"))
        await broker.stop()
    }

    @Test("A host name the certificate does not name fails unless host name checks are off")
    func hostnameVerification() async throws {
        let certificates = try await TestCertificates.make(serverNames: ["broker.example"])
        let broker = try await Broker.start(Broker.Options(tls: certificates))
        var tls = MQTTConfiguration.TLS(caFile: certificates.caCertificate.path)
        // The certificate names broker.example and 127.0.0.1; we connect to "localhost".
        let strict = broker.client("strict", tls: tls)
        await #expect(throws: MQTTError.self) { try await strict.connect() }
        tls.verifyHostname = false
        let lax = broker.client("lax", tls: tls)
        try await lax.connect()
        #expect(lax.state.isConnected)
        await lax.disconnect()
        await broker.stop()
    }

    @Test("A broker that requires client certificates accepts ours and refuses a client without one")
    func clientCertificate() async throws {
        let certificates = try await TestCertificates.make()
        let broker = try await Broker.start(Broker.Options(tls: certificates, requireClientCertificate: true))
        let withCertificate = MQTTConfiguration.TLS(
            caFile: certificates.caCertificate.path, certificateFile: certificates.clientCertificate.path,
            keyFile: certificates.clientKey.path)
        let client = broker.client("cert", tls: withCertificate)
        try await client.connect()
        #expect(client.state.isConnected)
        await client.disconnect()

        let without = MQTTClient(
            configuration: broker.clientConfiguration(clientID: "nocert", tls: .init(caFile: certificates.caCertificate.path)),
            logger: .test())
        await #expect(throws: MQTTError.self) { try await without.connect() }
        await broker.stop()
    }

    @Test("A TLS connection survives the broker dying: publishing fails cleanly (no SIGPIPE) and the client reconnects")
    func tlsOutage() async throws {
        let certificates = try await TestCertificates.make()
        let broker = try await Broker.start(Broker.Options(tls: certificates))
        let client = broker.client("tls-outage", tls: .init(caFile: certificates.caCertificate.path))
        try await client.connect()
        await broker.kill()
        // Writes into the dead TLS connection until the client notices; must not crash.
        for n in 0..<20 {
            try? await client.publish(to: "secure/outage", payload: "\(n)", qos: .atMostOnce, timeout: .milliseconds(200))
        }
        try await client.waitForState("reconnecting") { $0.isReconnecting }
        try await broker.restart()
        try await client.waitForState("connected again") { $0.isConnected }
        try await client.publish(to: "secure/outage", payload: "back", qos: .atLeastOnce)
        await client.disconnect()
        await broker.stop()
    }

    @Test("An unreadable CA file is reported before connecting")
    func missingCAFile() async throws {
        let client = MQTTClient(
            configuration: MQTTConfiguration(port: 8883, tls: .init(caFile: "/nonexistent/ca.crt")), logger: .test())
        await #expect(throws: MQTTError.tlsFailure(detail: "the CA file '/nonexistent/ca.crt' cannot be read")) {
            try await client.connect()
        }
    }
}

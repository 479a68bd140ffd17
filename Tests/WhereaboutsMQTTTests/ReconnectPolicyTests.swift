import Testing
import WhereaboutsCore
import WhereaboutsMQTT
import SystemSupport

struct ReconnectPolicyTests {
    @Test("Backoff doubles from the initial delay and stops at the cap")
    func exponentialAndCapped() {
        let policy = MQTTReconnectPolicy(initialDelay: .milliseconds(100), maximumDelay: .seconds(1), multiplier: 2, jitter: 0)
        var generator = SplitMix64(seed: 1)
        let delays = (1...8).map { policy.delay(forAttempt: $0, using: &generator) }
        #expect(delays == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1), .seconds(1), .seconds(1), .seconds(1)])
    }

    @Test("Jitter takes at most its fraction off, and varies")
    func jitter() {
        let policy = MQTTReconnectPolicy(initialDelay: .seconds(1), maximumDelay: .seconds(1), jitter: 0.25)
        var generator = SplitMix64(seed: 42)
        let delays = (1...200).map { _ in policy.delay(forAttempt: 3, using: &generator) }
        #expect(delays.allSatisfy { $0 >= .milliseconds(750) && $0 <= .seconds(1) })
        #expect(Set(delays).count > 100)
    }

    @Test("Invalid policies and configurations are rejected with a reason")
    func validation() {
        #expect(throws: MQTTError.self) {
            try MQTTConfiguration(reconnect: MQTTReconnectPolicy(initialDelay: .seconds(2), maximumDelay: .seconds(1))).validate()
        }
        #expect(throws: MQTTError.invalidArgument("a persistent session (cleanSession false) needs a client id")) {
            try MQTTConfiguration(cleanSession: false).validate()
        }
        #expect(throws: MQTTError.self) { try MQTTConfiguration(port: 70_000).validate() }
        #expect(throws: MQTTError.self) { try MQTTConfiguration(tls: MQTTConfiguration.TLS()).validate() }
    }
}

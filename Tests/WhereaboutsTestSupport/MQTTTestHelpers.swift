import Foundation
import Logging
import WhereaboutsMQTT

extension MQTTMessages {
    /// Collects the next `count` messages, throwing `TimeoutError` if they do not all arrive
    /// within `timeout`.
    public func collect(_ count: Int, timeout: Duration = .seconds(10)) async throws -> [MQTTMessage] {
        try await withTimeout(timeout, "\(count) MQTT messages") {
            var received: [MQTTMessage] = []
            for await message in self {
                received.append(message)
                if received.count == count { break }
            }
            return received
        }
    }

    /// The next message, or `TimeoutError` after `timeout`.
    public func next(timeout: Duration = .seconds(10)) async throws -> MQTTMessage {
        guard let message = try await collect(1, timeout: timeout).first else {
            throw TimeoutError(what: "an MQTT message (the sequence ended)", timeout: timeout)
        }
        return message
    }
}

extension MQTTClient {
    /// Waits until the connection state satisfies `predicate`, at most `timeout`; returns it.
    @discardableResult
    public func waitForState(
        timeout: Duration = .seconds(10), _ description: String = "a connection state",
        where predicate: @escaping @Sendable (MQTTConnectionState) -> Bool
    ) async throws -> MQTTConnectionState {
        let states = stateUpdates
        return try await withTimeout(timeout, description) {
            for await state in states where predicate(state) { return state }
            throw TimeoutError(what: "\(description) (the client went away)", timeout: timeout)
        }
    }
}

extension Broker {
    /// A new (unconnected) client for this broker: `clientConfiguration(...)`, adjusted by
    /// `configure`, with a test logger.
    public func client(
        _ clientID: String, tls: MQTTConfiguration.TLS? = nil, credentials: MQTTConfiguration.Credentials? = nil,
        logger: Logger = .test(), configure: (inout MQTTConfiguration) -> Void = { _ in }
    ) -> MQTTClient {
        var configuration = clientConfiguration(clientID: clientID, tls: tls, credentials: credentials)
        configure(&configuration)
        return MQTTClient(configuration: configuration, logger: logger)
    }
}

extension Logger {
    /// A logger for tests: warnings and above to stderr, or `level` when given.
    public static func test(_ label: String = "test", level: Logger.Level = .warning) -> Logger {
        var logger = Logger(label: label)
        logger.logLevel = level
        return logger
    }
}

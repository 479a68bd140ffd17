import Foundation
import Logging
import WhereaboutsMQTT

/// Talks to mosquitto's dynamic security plugin over its control topics with an admin account:
/// one request (`{"commands":[...]}` on `$CONTROL/dynamic-security/v1`) at a time, each answered
/// on `$CONTROL/dynamic-security/v1/response`.
package struct DynamicSecurityControl: Sendable {
    /// The request topic.
    static let requestTopic = "$CONTROL/dynamic-security/v1"
    /// The response topic.
    static let responseTopic = "$CONTROL/dynamic-security/v1/response"

    private let client: MQTTClient
    private let timeout: Duration

    /// Uses `client`, which must be connected with an account that holds the plugin's admin
    /// role; answers are awaited at most `timeout`.
    package init(client: MQTTClient, timeout: Duration = .seconds(10)) {
        self.client = client
        self.timeout = timeout
    }

    /// One command's answer: an error, or for the list commands their data.
    struct Response: Decodable, Sendable {
        struct Listing: Decodable, Sendable {
            var clients: [DynamicSecuritySnapshot.Client]?
            var roles: [DynamicSecuritySnapshot.Role]?
        }
        var command: String
        var error: String?
        var data: Listing?
    }

    /// Sends `commands` in one request and returns the answers, in order.
    func send(_ commands: [DynamicSecurityCommand]) async throws -> [Response] {
        struct Request: Encodable { var commands: [DynamicSecurityCommand] }
        struct Answer: Decodable { var responses: [Response] }
        let messages = client.messages
        try await client.subscribe(to: Self.responseTopic, qos: .atLeastOnce)
        let payload = try JSONEncoder().encode(Request(commands: commands))
        try await client.publish(to: Self.requestTopic, payload: payload, qos: .atLeastOnce, retain: false)
        let answer = try await withThrowingTaskGroup(of: Data?.self) { group in
            group.addTask {
                for await message in messages where message.topic == Self.responseTopic { return message.payload }
                return nil
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
        guard let answer else {
            throw AccessControlError("The broker did not answer the dynamic security request within \(timeout). Is mosquitto_dynamic_security.so loaded, and does this account hold the admin role?")
        }
        let responses = try JSONDecoder().decode(Answer.self, from: answer).responses
        guard responses.count == commands.count else {
            throw AccessControlError("The broker answered \(responses.count) of \(commands.count) dynamic security commands.")
        }
        return responses
    }

    /// The plugin's clients and roles.
    func snapshot() async throws -> DynamicSecuritySnapshot {
        let answers = try await send([.list("listClients"), .list("listRoles")])
        for answer in answers {
            if let error = answer.error { throw AccessControlError("The broker refused \(answer.command): \(error).") }
        }
        guard let clients = answers[0].data?.clients, let roles = answers[1].data?.roles else {
            throw AccessControlError("The broker's answer to listClients and listRoles carried no clients or roles.")
        }
        return DynamicSecuritySnapshot(clients: clients, roles: roles)
    }

    static func json(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}

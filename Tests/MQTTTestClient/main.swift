// A tiny MQTT client process for tests that must kill a client without a DISCONNECT
// (the will test): it connects with our MQTTClient, prints "connected", and waits forever.
//
// Usage: mqtt-test-client <host> <port> <client-id> <will-topic> <will-payload> [v5]
import Foundation
import Logging
import WhereaboutsMQTT

let arguments = CommandLine.arguments
guard arguments.count == 6 || (arguments.count == 7 && arguments[6] == "v5"), let port = Int(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: mqtt-test-client <host> <port> <client-id> <will-topic> <will-payload> [v5]\n".utf8))
    exit(2)
}
let configuration = MQTTConfiguration(
    host: arguments[1], port: port, clientID: arguments[3],
    protocolVersion: arguments.count == 7 ? .v5 : .v311,
    will: MQTTConfiguration.Will(topic: arguments[4], payload: Data(arguments[5].utf8), qos: .atLeastOnce, retain: false))
let client = MQTTClient(configuration: configuration, logger: Logger(label: "mqtt-test-client"))
do {
    try await client.connect()
    FileHandle.standardOutput.write(Data("connected\n".utf8))
    while true { try await Task.sleep(for: .seconds(3600)) }
} catch {
    FileHandle.standardError.write(Data("mqtt-test-client: \(error)\n".utf8))
    exit(1)
}

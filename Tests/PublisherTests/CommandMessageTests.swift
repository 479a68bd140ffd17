import Foundation
import Testing
@testable import WhereaboutsCore

@Suite("Commands")
struct CommandMessageTests {
    @Test("OwnTracks and simple command forms parse", arguments: [
        (#"{"_type":"cmd","action":"reportLocation"}"#, CommandMessage.reportLocation),
        (#"{"_type":"cmd","action":"setConfiguration","configuration":{"monitoring":1,"pubQos":1}}"#, .setProfile(.significant)),
        (#"{"_type":"cmd","action":"setConfiguration","configuration":{"monitoring":2}}"#, .setProfile(.active)),
        (#"{"_type":"cmd","action":"setProfile","profile":"significant"}"#, .setProfile(.significant)),
        (#"{"_type":"cmd","action":"setProfile","profile":"active"}"#, .setProfile(.active)),
    ])
    func parses(json: String, expected: CommandMessage) throws {
        #expect(try CommandMessage(payload: Data(json.utf8)) == expected)
    }

    @Test("Malformed commands are rejected with a reason", arguments: [
        ("not json", CommandMessageError.notJSON),
        ("[1,2]", .notAnObject),
        (#"{"_type":"location","action":"reportLocation"}"#, .notACommand),
        (#"{"_type":"cmd"}"#, .missingAction),
        (#"{"_type":"cmd","action":"reboot"}"#, .unknownAction("reboot")),
        (#"{"_type":"cmd","action":"setConfiguration","configuration":{}}"#, .missingMonitoring),
        (#"{"_type":"cmd","action":"setConfiguration","configuration":{"monitoring":0}}"#, .unsupportedMonitoring(0)),
        (#"{"_type":"cmd","action":"setConfiguration","configuration":{"monitoring":true}}"#, .missingMonitoring),
        (#"{"_type":"cmd","action":"setConfiguration","configuration":{"monitoring":false}}"#, .missingMonitoring),
        (#"{"_type":"cmd","action":"setConfiguration","configuration":{"monitoring":"1"}}"#, .missingMonitoring),
        (#"{"_type":"cmd","action":"setConfiguration","configuration":{"monitoring":1.5}}"#, .missingMonitoring),
        (#"{"_type":"cmd","action":"setConfiguration","configuration":{"monitoring":null}}"#, .missingMonitoring),
        (#"{"_type":"cmd","action":"setProfile","profile":"turbo"}"#, .unknownProfile("turbo")),
    ])
    func rejects(json: String, expected: CommandMessageError) {
        #expect(throws: expected) { try CommandMessage(payload: Data(json.utf8)) }
    }

    @Test("An oversize command is rejected before parsing")
    func oversize() {
        let payload = Data(repeating: 0x20, count: CommandMessage.maxPayloadSize + 1)
        #expect(throws: CommandMessageError.tooLarge(bytes: payload.count)) { try CommandMessage(payload: payload) }
    }
}

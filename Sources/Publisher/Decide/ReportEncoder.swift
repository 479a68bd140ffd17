#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import WhereaboutsCore

/// Builds the exact bytes of location messages, live and backlog.
struct ReportEncoder: Sendable {
    /// The tracker id.
    var tid: String
    /// The `ms` for reports with a velocity whose policy set none.
    var maxSilence: Int?

    /// Creates an encoder.
    init(tid: String, maxSilence: Int?) {
        self.tid = tid
        self.maxSilence = maxSilence
    }

    /// The wire message for a report made under `mode`, with the battery when known.
    func message(for report: Report, mode: MonitoringMode, battery: BatteryReading?) -> LocationMessage {
        var message = LocationMessage(report: report, tid: tid, mode: mode, maxSilence: maxSilence)
        message.batt = battery?.level
        message.bs = battery?.status.rawValue
        return message
    }

    /// Encodes a message as compact JSON with sorted keys (`_type` first), the payload stored in the outbox.
    static func encode<Message: Encodable>(_ message: Message) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding these value types cannot fail: every field is a string, integer or finite double.
        return (try? encoder.encode(message)) ?? Data()
    }

    /// The payload of an outbox entry sent as backlog: the stored message with `created_at` set,
    /// strictly after `tst` so receivers can tell history from live data.
    ///
    /// A `transition` gets `created_at` the same way (iOS adds it to a transition sent late).
    /// Returns the stored payload unchanged when it is neither (it is sent as is).
    static func backlogPayload(_ payload: Data, tst: Int, now: Date) -> Data {
        let createdAt = max(Int(now.timeIntervalSince1970.rounded(.down)), tst + 1)
        let decoder = JSONDecoder()
        switch (try? decoder.decode(TypeTag.self, from: payload))?.type {
        case "transition":
            guard var message = try? decoder.decode(TransitionMessage.self, from: payload) else { return payload }
            message.createdAt = createdAt
            return encode(message)
        case "location", nil:
            guard var message = try? decoder.decode(LocationMessage.self, from: payload) else { return payload }
            message.createdAt = createdAt
            return encode(message)
        default:
            return payload
        }
    }

    /// The `_type` of a stored payload.
    private struct TypeTag: Decodable {
        var type: String?
        enum CodingKeys: String, CodingKey { case type = "_type" }
    }
}

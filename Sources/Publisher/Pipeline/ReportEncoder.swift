import Foundation
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
    /// Returns the stored payload unchanged when it is not a location message (it is sent as is).
    static func backlogPayload(_ payload: Data, tst: Int, now: Date) -> Data {
        guard var message = try? JSONDecoder().decode(LocationMessage.self, from: payload) else { return payload }
        message.createdAt = max(Int(now.timeIntervalSince1970.rounded(.down)), tst + 1)
        return encode(message)
    }
}

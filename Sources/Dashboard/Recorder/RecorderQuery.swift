import Foundation
import Hummingbird

/// The query parameters of the Recorder API, checked: dates, ranges and limits that do not make
/// sense answer 400 with a message saying what to send.
enum RecorderQuery {
    /// The longest `limit` served at once.
    static let maxLimit = 1_000_000
    /// `from` when not given: six hours before `to`, as the Recorder does.
    static let defaultSpan = 6 * 3600

    /// Parses `YYYY-MM-DDTHH:MM:SS` (UTC; a trailing `Z` is allowed) or `YYYY-MM-DD` (midnight UTC)
    /// into epoch seconds.
    static func epochSeconds(_ text: String, name: String) throws -> Int {
        let formats = ["yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm:ss'Z'", "yyyy-MM-dd"]
        // Exactly four digits of year (DateFormatter would take 99999-01-01 too).
        let shapeIsRight = [10, 19, 20].contains(text.utf8.count) && text.utf8.prefix(4).allSatisfy { (48...57).contains($0) }
            && text.utf8.dropFirst(4).first == UInt8(ascii: "-")
        for format in formats where shapeIsRight {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = format
            formatter.isLenient = false
            if text.utf8.count <= 20, let date = formatter.date(from: text), formatter.string(from: date) == text {
                return Int(date.timeIntervalSince1970)
            }
        }
        throw APIError(
            status: .badRequest, code: "bad_date",
            message: "'\(name)' must be a UTC date and time as YYYY-MM-DDTHH:MM:SS (or a date, YYYY-MM-DD); got '\(text.prefix(40))'.")
    }

    /// The `from`…`to` range of a request (default: the last six hours up to now).
    static func range(_ parameters: Parameters, now: Date) throws -> ClosedRange<Int> {
        let to = try parameters["to"].map { try epochSeconds($0, name: "to") } ?? Int(now.timeIntervalSince1970)
        let from = try parameters["from"].map { try epochSeconds($0, name: "from") } ?? (to - defaultSpan)
        guard from <= to else {
            throw APIError(status: .badRequest, code: "bad_range", message: "'from' must not be after 'to'.")
        }
        return from...to
    }

    /// The locations a correction or a restore acts on: `tst` for one, or both `from` and `to`
    /// for a range; `action` ("delete", "restore") words the error when neither is given.
    static func targets(_ parameters: Parameters, now: Date, action: String) throws -> ClosedRange<Int> {
        if let text = parameters["tst"] {
            guard let tst = Int(text), tst >= 0 else {
                throw APIError(status: .badRequest, code: "bad_tst", message: "'tst' must be a whole number of epoch seconds; got '\(text.prefix(40))'.")
            }
            return tst...tst
        }
        guard parameters["from"] != nil, parameters["to"] != nil else {
            throw APIError(
                status: .badRequest, code: "missing_parameter",
                message: "Say what to \(action): 'tst' for one location, or both 'from' and 'to' for a range.")
        }
        return try range(parameters, now: now)
    }

    /// The `limit` of a request: 1…``maxLimit``, default ``maxLimit``.
    static func limit(_ parameters: Parameters) throws -> Int {
        guard let text = parameters["limit"] else { return maxLimit }
        guard let limit = Int(text), (1...maxLimit).contains(limit) else {
            throw APIError(
                status: .badRequest, code: "bad_limit",
                message: "'limit' must be a whole number from 1 to \(maxLimit); got '\(text.prefix(40))'.")
        }
        return limit
    }

    /// The named parameter, which must be given and not empty.
    static func required(_ parameters: Parameters, _ name: String) throws -> String {
        guard let value = parameters[name], !value.isEmpty else {
            throw APIError(status: .badRequest, code: "missing_parameter", message: "'\(name)' is required.")
        }
        return value
    }

    /// A request's query parameters (the first of repeated names).
    typealias Parameters = [String: String]

    /// The query parameters of `request`.
    static func parameters(of request: Request) -> Parameters {
        var parameters: Parameters = [:]
        for (key, value) in request.uri.queryParameters where parameters[String(key)] == nil {
            parameters[String(key)] = String(value)
        }
        return parameters
    }
}

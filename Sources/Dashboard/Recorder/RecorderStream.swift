import Foundation
import Hummingbird
import Subscriber

/// One `/api/0/locations` answer, streamed: the history is read a page at a time (keyset on
/// `tst`, which is unique per member) and each page is encoded and written before the next is
/// read, so memory stays flat however long the range (one page, not the whole answer).
struct RecorderStream: Sendable {
    /// Locations read and written per step.
    static let pageSize = 5_000

    let history: HistoryStore
    let member: MemberID
    let range: ClosedRange<Int>
    let limit: Int
    let format: RecorderFormat
    /// The `fields` asked for, in order; `nil`: all.
    let fields: [String]?

    /// The streaming response.
    func response() -> Response {
        var headers: HTTPFields = [.contentType: format.contentType, .cacheControl: "no-store", .xContentTypeOptions: "nosniff"]
        if format != .json {
            headers[.contentDisposition] = "attachment; filename=\"\(format.fileName(user: member.user, device: member.device))\""
        }
        let stream = self
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            try await stream.write(to: &writer)
        })
    }

    private func write(to writer: inout any ResponseBodyWriter) async throws {
        let fieldSet = fields.map(Set.init)
        var buffer = ByteBuffer(string: format.header(fields: fieldSet, orderedFields: fields))
        var count = 0
        var from = range.lowerBound
        while count < limit {
            let wanted = min(Self.pageSize, limit - count)
            let page = try await history.locations(of: member, from: from, to: range.upperBound, limit: wanted)
            for location in page {
                buffer.writeString(format.record(location, index: count, fields: fieldSet, orderedFields: fields))
                count += 1
            }
            try await writer.write(buffer)
            buffer.clear()
            guard page.count == wanted, let last = page.last?.fix.tst, last < range.upperBound else { break }
            from = last + 1
        }
        buffer.writeString(format.footer(count: count))
        try await writer.write(buffer)
        try await writer.finish(nil)
    }
}

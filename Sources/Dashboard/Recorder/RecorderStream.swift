import Foundation
import Hummingbird
import NIOCore
import Subscriber

/// One `/api/0/locations` answer, streamed: the history is read a chunk at a time, each chunk
/// one SQLite statement stepped in one read transaction and encoded straight into a buffer
/// (``RecorderEncoder``) until the buffer holds ``chunkBytes``; the next chunk continues after
/// the last `tst` of the one before (keyset: `tst` is unique per member) and is read while the
/// one before is written. Memory stays flat however long the range: two chunks, not the whole
/// answer.
struct RecorderStream: Sendable {
    /// Bytes encoded per chunk before it is written out (a few thousand locations).
    static let chunkBytes = 256 * 1024

    let history: HistoryStore
    let key: HistoryMemberKey
    let member: MemberID
    let range: ClosedRange<Int>
    let limit: Int
    /// The `fields` asked for, in order; `nil`: all.
    let fields: [String]?
    private let encoder: RecorderEncoder
    private let text: RecorderEncoder.Member

    /// The answer for `member` (whose history key is `key`) between `range`, at most `limit`
    /// locations, in `format`, reduced to `fields` when given.
    init(history: HistoryStore, key: HistoryMemberKey, member: MemberID, range: ClosedRange<Int>, limit: Int, format: RecorderFormat, fields: [String]?) {
        self.history = history
        self.key = key
        self.member = member
        self.range = range
        self.limit = limit
        self.fields = fields
        encoder = RecorderEncoder(format: format, fields: fields)
        text = RecorderEncoder.Member(member, format: format)
    }

    /// The streaming response.
    func response() -> Response {
        let format = encoder.format
        var headers: HTTPFields = [.contentType: format.contentType, .cacheControl: "no-store", .xContentTypeOptions: "nosniff"]
        if format != .json {
            headers[.contentDisposition] = "attachment; filename=\"\(format.fileName(user: member.user, device: member.device))\""
        }
        let stream = self
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            try await stream.write(to: &writer)
        })
    }

    /// One chunk: its bytes, how many locations it holds, and the `tst` of its last.
    private struct Chunk: Sendable {
        var buffer: ByteBuffer
        var count = 0
        var lastTST: Int?
        /// Whether the statement ran out (the range or the limit is exhausted).
        var exhausted = false
    }

    /// Writes the answer. While one chunk goes out to the client, the next is read and encoded
    /// beside it (on GRDB's reader queue), so SQLite, the encoder and the socket overlap.
    private func write(to writer: inout any ResponseBodyWriter) async throws {
        try await writer.write(ByteBuffer(string: encoder.format.header(fields: fields)))
        var chunk = try await read(from: range.lowerBound, index: 0)
        var count = chunk.count
        while true {
            let next: (from: Int, index: Int)? =
                if !chunk.exhausted, count < limit, let last = chunk.lastTST, last < range.upperBound { (last + 1, count) } else { nil }
            guard let next else {
                if chunk.buffer.readableBytes > 0 { try await writer.write(chunk.buffer) }
                break
            }
            let current = chunk.buffer
            chunk = try await withThrowingTaskGroup(of: Chunk.self) { group in
                group.addTask { try await read(from: next.from, index: next.index) }
                try await writer.write(current)
                return try await group.next()!
            }
            count += chunk.count
        }
        try await writer.write(ByteBuffer(string: encoder.format.footer(count: count)))
        try await writer.finish(nil)
    }

    /// Reads and encodes the locations from `tst` `from` on, the first being the `index`th of
    /// the answer, until a chunk is full.
    private func read(from: Int, index: Int) async throws(HistoryError) -> Chunk {
        let encoder = encoder, text = text, upper = range.upperBound
        let wanted = limit - index
        return try await history.scanLocations(of: key, from: from, to: upper, limit: wanted) { rows throws(HistoryError) in
            var chunk = Chunk(buffer: ByteBuffer(), exhausted: true)
            chunk.buffer.reserveCapacity(Self.chunkBytes + 16 * 1024)
            while try rows.next() {
                encoder.append(rows, of: text, index: index + chunk.count, to: &chunk.buffer)
                chunk.count += 1
                chunk.lastTST = rows.tst
                if chunk.buffer.readableBytes >= Self.chunkBytes {
                    chunk.exhausted = chunk.count == wanted
                    return chunk
                }
            }
            return chunk
        }
    }
}

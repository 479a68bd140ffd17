import Foundation
import Hummingbird
import NIOCore
import Subscriber

/// One `/api/0/locations` answer, streamed in chunks of ``chunkRows`` locations. Where each
/// chunk ends is found first by walking the index (``HistoryStore/locationBoundary(of:from:to:skipping:)``,
/// cheap); then up to ``chunksAhead`` chunks are read and encoded side by side, each one SQLite
/// statement stepped in one read transaction and written straight into its own buffer
/// (``RecorderEncoder``), while the chunk before them goes out to the client in order. On two
/// cores this keeps both busy: reading and encoding one location costs about 2 us, twenty times
/// more than finding the boundary (BENCHMARKS.md, "Recorder API"). Memory stays flat however
/// long the range: a few chunks, not the whole answer.
struct RecorderStream: Sendable {
    /// Locations per chunk (about 500 KB of JSON).
    static let chunkRows = 2_000
    /// Chunks read and encoded at the same time, beyond the one being written.
    static let chunksAhead = 2

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

    /// One chunk, encoded: its range, its bytes (each location with the comma the JSON formats
    /// put between locations) and how many locations it holds.
    private struct Chunk: Sendable {
        var from: Int, to: Int
        var buffer: ByteBuffer
        var count = 0
    }

    private func write(to writer: inout any ResponseBodyWriter) async throws {
        try await writer.write(ByteBuffer(string: encoder.format.header(fields: fields)))
        var count = 0
        try await withThrowingTaskGroup(of: (sequence: Int, chunk: Chunk).self) { group in
            var next: Int? = range.lowerBound  // where the next chunk to read starts
            var planned = 0, launched = 0, written = 0
            var ready: [Int: Chunk] = [:]
            while true {
                while launched - written <= Self.chunksAhead, let start = next, planned < limit {
                    let rows = min(Self.chunkRows, limit - planned)
                    let end = try await history.locationBoundary(of: key, from: start, to: range.upperBound, skipping: rows)
                    let sequence = launched, most = limit - planned
                    let last = end.map { $0 - 1 } ?? range.upperBound
                    // The whole of the chunk's range (locations stored meanwhile included), at
                    // most what the answer can still take.
                    group.addTask { (sequence, try await read(from: start, to: last, limit: most)) }
                    (launched, planned, next) = (launched + 1, planned + rows, end)
                }
                guard written < launched, count < limit else { break }
                guard var chunk = ready.removeValue(forKey: written) else {
                    if let done = try await group.next() { ready[done.sequence] = done.chunk }
                    continue
                }
                written += 1
                if count + chunk.count > limit {
                    // Locations stored in an earlier chunk's range meanwhile: this one is read
                    // again, cut to what the limit leaves.
                    chunk = try await read(from: chunk.from, to: chunk.to, limit: limit - count)
                }
                if count == 0, chunk.count > 0, encoder.separatesWithComma { chunk.buffer.moveReaderIndex(forwardBy: 1) }
                count += chunk.count
                if chunk.buffer.readableBytes > 0 { try await writer.write(chunk.buffer) }
            }
            group.cancelAll()
        }
        try await writer.write(ByteBuffer(string: encoder.format.footer(count: count)))
        try await writer.finish(nil)
    }

    /// Reads and encodes the locations with `from <= tst <= to`, at most `limit`, each as if it
    /// were not the first of the answer. The range of a chunk is closed by the next chunk's first
    /// `tst`, so a location stored in it while the answer streams is sent once, in order, and
    /// none stored before is left out.
    private func read(from: Int, to: Int, limit: Int) async throws(HistoryError) -> Chunk {
        let encoder = encoder, text = text
        return try await history.scanLocations(of: key, from: from, to: to, limit: limit) { rows throws(HistoryError) in
            var chunk = Chunk(from: from, to: to, buffer: ByteBuffer())
            chunk.buffer.reserveCapacity(min(limit, RecorderStream.chunkRows) * 300)
            while try rows.next() {
                encoder.append(rows, of: text, index: 1, to: &chunk.buffer)
                chunk.count += 1
            }
            return chunk
        }
    }
}

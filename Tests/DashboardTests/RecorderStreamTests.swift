@testable import Dashboard
import Foundation
import HummingbirdTesting
import Logging
@testable import Subscriber
import Testing
import WhereaboutsCore
import WhereaboutsTestSupport

/// `/api/0/locations` streamed in chunks read side by side (RecorderStream) over a real SQLite
/// history, while other locations are being stored into the range it reads: the answer stays
/// sorted by `tst`, holds no location twice, leaves out none that was stored before it started,
/// and keeps to `limit`.
@Suite("Recorder stream: chunks in order while locations are stored")
struct RecorderStreamTests {
    static let member = MemberID(user: "alice", device: "phone")
    static let t0 = 1_700_000_000

    static func row(_ tst: Int) -> HistoryRow {
        .location(member, LocationMessage(tid: "al", tst: tst, lat: 52.0 + Double(tst - t0) * 1e-6, lon: -8.6, acc: 5), receivedAt: Double(tst))
    }

    /// Fetches the answer (`limit`: at most) while late points (odd seconds between the stored
    /// even ones) are written into its range in small batches; returns the `tst`s and `count`.
    static func fetchWhileWriting(limit: Int) async throws -> (tsts: [Int], count: Int, even: Int) {
        let directory = try TestPaths.makeTemporaryDirectory()
        let history = try HistoryStore(path: directory.appendingPathComponent("history.sqlite").path, logger: Logger(label: "test"))
        let even = 5 * RecorderStream.chunkRows + 123
        _ = try await history.write((0..<even).map { row(t0 + 2 * $0) })
        var configuration = DashboardConfiguration(port: 0)
        configuration.history = history
        let application = APITests.application(await Fixtures.store(), configuration: configuration)
        let query = "/api/0/locations?user=alice&device=phone&from=2023-01-01&to=2024-01-01&limit=\(limit)"
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for batch in 0..<40 {
                    _ = try await history.write((0..<25).map { row(t0 + 2 * ((batch * 25 + $0) * even / 1_000) + 1) })
                    await Task.yield()
                }
            }
            let result = try await application.test(.router) { client in
                try await client.execute(uri: query, method: .get) { response -> (tsts: [Int], count: Int, even: Int) in
                    #expect(response.status == .ok)
                    let object = try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
                    let data = try #require(object["data"] as? [[String: Any]])
                    return (data.compactMap { $0["tst"] as? Int }, object["count"] as? Int ?? -1, even)
                }
            }
            try await group.waitForAll()
            return result
        }
    }

    @Test("The whole range: sorted, no location twice, every one stored before present, count right")
    func wholeRange() async throws {
        let (tsts, count, even) = try await Self.fetchWhileWriting(limit: 1_000_000)
        #expect(count == tsts.count)
        #expect(zip(tsts, tsts.dropFirst()).allSatisfy { $0 < $1 }, "not sorted or a location twice")
        let evens = Set(tsts.filter { ($0 - Self.t0) % 2 == 0 })
        #expect(evens.count == even, "\(even - evens.count) locations stored before the request are missing")
        #expect(tsts.count <= even + 1_000)
    }

    @Test("A limit across chunks: exactly limit, sorted, and nothing skipped before the last one sent", arguments: [1, 1_999, 2_000, 2_001, 6_001])
    func limited(limit: Int) async throws {
        let (tsts, count, _) = try await Self.fetchWhileWriting(limit: limit)
        #expect(count == limit && tsts.count == limit)
        #expect(zip(tsts, tsts.dropFirst()).allSatisfy { $0 < $1 })
        let last = try #require(tsts.last)
        let evens = Set(tsts.filter { ($0 - Self.t0) % 2 == 0 })
        #expect(evens.count == (last - Self.t0) / 2 + 1, "an even location before the last one sent is missing")
    }
}

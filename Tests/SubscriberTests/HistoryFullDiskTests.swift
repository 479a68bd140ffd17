import Foundation
import Testing
import WhereaboutsCore
import WhereaboutsTestSupport
@testable import Subscriber

/// Whether this process may mount a tmpfs (root and `/bin/mount`).
private let canMountTmpfs = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/bin/mount")

/// The history (and its outliers kept aside) on a real tmpfs filled on purpose (needs root, as
/// PublisherTests' SmallDisk): a batch that does not fit fails whole with `storageFull`, nothing
/// committed before is lost or damaged, and writing resumes once space is freed.
@Suite("History on a full file system (real SQLite on a small tmpfs)", .enabled(if: canMountTmpfs))
struct HistoryFullDiskTests {
    @Test("A batch that does not fit fails whole with storageFull; everything committed stays; writing resumes after space is freed")
    func fullDisk() async throws {
        let folder = try TestPaths.makeTemporaryDirectory(prefix: "history-full")
        try ToolRun.runChecked("/bin/mount", ["-t", "tmpfs", "-o", "size=400k", "tmpfs", folder.path])
        defer { try? ToolRun.runChecked("/bin/umount", ["-l", folder.path]) }
        let filler = folder.appendingPathComponent("filler")
        try Data(count: 96 * 1024).write(to: filler)
        let path = folder.appendingPathComponent("history.sqlite").path
        let store = try HistoryStore(path: path, logger: Build.quietLogger)

        var committed: [Int] = []
        var failure: HistoryError?
        var tst = Build.t0
        for _ in 0..<1_000 {
            let tsts = Array(tst..<(tst + 100))
            tst += 100
            let rows = tsts.flatMap { t in
                [HistoryStoreTests.row(Build.alice, t), HistoryOutliersTests.rejectedRow(Build.bob, t)]
            }
            do {
                _ = try await store.write(rows)
                committed += tsts
            } catch {
                failure = error
                break
            }
        }
        #expect(failure == .storageFull(path: path), "\(String(describing: failure))")
        #expect(failure?.description.contains("is full") == true)
        #expect(!committed.isEmpty)
        // Everything committed is there, nothing of the batch that failed.
        #expect(try await store.locations(of: Build.alice, from: 0, to: .max, limit: 1_000_000).map(\.fix.tst) == committed)
        #expect(try await store.rejectedLocations(of: Build.bob, from: 0, to: .max, limit: 1_000_000).map(\.location.fix.tst) == committed)

        try FileManager.default.removeItem(at: filler)
        #expect(try await store.write([HistoryStoreTests.row(Build.alice, tst), HistoryOutliersTests.rejectedRow(Build.bob, tst)]) == 2)
        let restored = try await store.restoreRejected(
            of: Build.bob, from: committed[0], to: committed[0], notAfter: .max, actor: "bob", client: "::1", at: 1)
        #expect(restored.restored == 1)
        #expect(try await store.locations(of: Build.alice, from: 0, to: .max, limit: 1_000_000).last?.fix.tst == tst)
    }
}

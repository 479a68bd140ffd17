import Foundation
import FuzzHarnesses
import Testing

/// The fuzzers' seed corpora (and every input they kept) replayed through the harnesses, so that a
/// decoder change that crashes or breaks an invariant on a known input fails the normal test run.
@Suite struct FuzzCorpusTests {
    static let corpusRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/Corpus")

    @Test(arguments: Harness.allCases)
    func corpusReplaysCleanly(_ harness: Harness) throws {
        let folder = Self.corpusRoot.appendingPathComponent(harness.rawValue)
        let count = try CorpusReplay.run(harness, directory: folder)
        // A harness without a corpus would pass vacuously.
        #expect(count >= 5, "Fuzz/Corpus/\(harness.rawValue) holds only \(count) inputs")
    }

    /// The inputs that once crashed a decoder (each also has a regression test in the decoder's
    /// own test target); kept out of the seed corpora because they are large.
    @Test(arguments: Harness.allCases)
    func regressionsReplayCleanly(_ harness: Harness) throws {
        let folder = Self.corpusRoot.deletingLastPathComponent().appendingPathComponent("Regressions/\(harness.rawValue)")
        guard FileManager.default.fileExists(atPath: folder.path) else { return }
        _ = try CorpusReplay.run(harness, directory: folder)
    }
}

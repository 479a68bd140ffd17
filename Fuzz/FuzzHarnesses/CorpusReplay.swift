import Foundation

/// Runs every file of a corpus folder through a harness: the seed corpora as a regression test,
/// without libFuzzer.
package enum CorpusReplay {
    /// The inputs run, or the error that kept the folder from being read.
    package static func run(_ harness: Harness, directory: URL) throws -> Int {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        var count = 0
        for name in names where !name.hasPrefix(".") {
            harness.run(Array(try Data(contentsOf: directory.appendingPathComponent(name))))
            count += 1
        }
        return count
    }
}

// Built two ways (see docs/fuzzing.md):
// - by scripts/fuzz with `-sanitize=fuzzer,address -DFUZZING`: libFuzzer's main calls
//   LLVMFuzzerTestOneInput, and WHEREABOUTS_FUZZ_HARNESS names the harness;
// - by a normal `swift build`: a command that replays corpus folders through the same harnesses.
import Foundation
import FuzzHarnesses

#if FUZZING
/// The harness this process fuzzes, read once from the environment.
private let selectedHarness: Harness = {
    let name = ProcessInfo.processInfo.environment["WHEREABOUTS_FUZZ_HARNESS"] ?? ""
    guard let harness = Harness(rawValue: name) else {
        let names = Harness.allCases.map(\.rawValue).joined(separator: ", ")
        fatalError("Set WHEREABOUTS_FUZZ_HARNESS to one of: \(names) (got \"\(name)\").")
    }
    return harness
}()

/// libFuzzer's entry point: one input per call.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    selectedHarness.run(size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
#else
/// `whereabouts-fuzz <harness> <folder-or-file>...`: replays inputs through a harness.
@main
enum ReplayCommand {
    static func main() {
        let arguments = CommandLine.arguments.dropFirst()
        let names = Harness.allCases.map(\.rawValue).joined(separator: "|")
        guard let name = arguments.first, let harness = Harness(rawValue: name), arguments.count >= 2 else {
            FileHandle.standardError.write(Data("""
                usage: whereabouts-fuzz <\(names)> <corpus-folder-or-input-file>...
                Replays every input through the harness (the fuzz targets' entry point) and exits 0
                when none breaks an invariant. Fuzzing itself: scripts/fuzz (see docs/fuzzing.md).

                """.utf8))
            exit(64)
        }
        var total = 0
        for path in arguments.dropFirst() {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                FileHandle.standardError.write(Data("whereabouts-fuzz: \(path): no such file or folder\n".utf8))
                exit(66)
            }
            do {
                if isDirectory.boolValue {
                    total += try CorpusReplay.run(harness, directory: URL(fileURLWithPath: path))
                } else {
                    harness.run(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
                    total += 1
                }
            } catch {
                FileHandle.standardError.write(Data("whereabouts-fuzz: \(path): \(error.localizedDescription)\n".utf8))
                exit(66)
            }
        }
        print("\(harness.rawValue): \(total) inputs replayed, no invariant broken")
    }
}
#endif

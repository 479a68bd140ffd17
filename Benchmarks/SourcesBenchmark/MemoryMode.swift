// `SourcesBenchmark memory FILE.gpx`: peak resident memory while a GPX file is streamed through
// `GPXSource` (what `whereabouts-pub --source gpx:` does), against the baseline measured in the
// same run: the same file's fixes all kept by `GPXFile.read` (what `whereabouts-eval` does, and
// what the publisher's unbounded hand-over amounted to when the consumer was slower than the
// parser). Both read the file as a stream through a bounded window; none is mapped.
// Each is measured in a child process of its own, as VmHWM from /proc/self/status.
import Foundation
import Logging
import PositionSources
import WhereaboutsCore

/// Peak resident set size of this process so far, in bytes (VmHWM).
func peakResidentBytes() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }
    return 0
}

/// Runs one measurement in this process and prints `fixes peak-bytes`.
func runMemoryChild(mode: String, path: String) async throws -> Never {
    let logger = Logger(label: "sources-benchmark", factory: { _ in SwiftLogNoOpLogHandler() })
    let url = URL(fileURLWithPath: path)
    var count = 0
    switch mode {
    case "stream":
        // A consumer slower than the parser (it pauses 1 ms every 2,000 fixes), as a replay is.
        for try await _ in GPXSource(url: url, logger: logger) {
            count += 1
            if count % 2_000 == 0 { try await Task.sleep(for: .milliseconds(1)) }
        }
    default:
        count = try GPXFile.read(contentsOf: url, logger: logger).fixes.count
    }
    print(count, peakResidentBytes())
    exit(0)
}

/// Runs both measurements in child processes and prints the comparison.
func runMemoryMode(path: String) throws -> Never {
    func child(_ mode: String) throws -> (fixes: Int, peak: Int, seconds: Double) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["memory-child", mode, path]
        let pipe = Pipe()
        process.standardOutput = pipe
        let start = ContinuousClock.now
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let seconds = (ContinuousClock.now - start) / .seconds(1)
        let fields = output.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        guard fields.count == 2 else { throw CocoaError(.fileReadCorruptFile) }
        return (fields[0], fields[1], seconds)
    }
    let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    let stream = try child("stream")
    let whole = try child("whole")
    let mb = { (bytes: Int) in String(format: "%.1f MB", Double(bytes) / 1_000_000) }
    print("file: \(mb(size)), \(stream.fixes) fixes")
    print("GPXSource (streamed):      peak \(mb(stream.peak)) in \(String(format: "%.1f", stream.seconds)) s")
    print("GPXFile.read (whole, base): peak \(mb(whole.peak)) in \(String(format: "%.1f", whole.seconds)) s")
    print(String(format: "ratio streamed / whole: %.3f", Double(stream.peak) / Double(max(1, whole.peak))))
    exit(0)
}

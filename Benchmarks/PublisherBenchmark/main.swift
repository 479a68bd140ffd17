// PublisherBenchmark: measurements for BENCHMARKS.md `## Publisher`, each against a baseline run
// in the same process or the same run. Usage:
//   PublisherBenchmark outbox [--fixes N]
//   PublisherBenchmark drain  [--fixes N] (needs mosquitto, the whereabouts-pub binary and the C baseline)
//   PublisherBenchmark memory (needs mosquitto and the whereabouts-pub binary)
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
func option(_ name: String, default value: Int) -> Int {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count, let n = Int(arguments[index + 1]) else {
        return value
    }
    return n
}

func text(_ name: String, default value: String) -> String {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return value }
    return arguments[index + 1]
}

do {
    switch arguments.first {
    case "outbox":
        try await OutboxBenchmark(fixes: option("--fixes", default: 2000)).run()
    case "drain":
        try await DrainBenchmark(fixes: option("--fixes", default: 100_000)).run()
    case "memory":
        let fixture = BenchmarkSupport.productsFolder.appendingPathComponent("../../../Tests/Fixtures/publisher/drive-240s.gpx").standardized.path
        let binary = arguments.contains("--publisher") ? URL(fileURLWithPath: text("--publisher", default: "")) : nil
        try await MemoryBenchmark(track: text("--track", default: fixture), seconds: option("--seconds", default: 10), publisher: binary).run()
    default:
        FileHandle.standardError.write(Data("usage: PublisherBenchmark outbox [--fixes N] | drain [--fixes N] | memory [--track GPX] [--seconds S] [--publisher PATH]\n".utf8))
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("PublisherBenchmark: \(error)\n".utf8))
    exit(1)
}

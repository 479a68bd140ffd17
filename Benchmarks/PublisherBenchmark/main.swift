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

switch arguments.first {
case "outbox":
    try await OutboxBenchmark(fixes: option("--fixes", default: 2000)).run()
default:
    FileHandle.standardError.write(Data("usage: PublisherBenchmark outbox [--fixes N]\n".utf8))
    exit(2)
}

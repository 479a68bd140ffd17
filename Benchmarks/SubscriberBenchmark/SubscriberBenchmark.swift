import Foundation
import Logging

/// `swift run -c release SubscriberBenchmark`: the subscriber's measured goals (BENCHMARKS.md).
@main
struct SubscriberBenchmark {
    static func main() async throws {
        let logger = Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() })
        let arguments = CommandLine.arguments.dropFirst()
        let members = arguments.first.flatMap(Int.init) ?? 100_000
        let pipeline = await PipelineBenchmark.run(messages: 200_000, members: 1000, logger: logger)
        print(String(format: "pipeline (no MQTT): %.0f messages/s", pipeline))
        let memory = await MemoryBenchmark.run(members: members, logger: logger)
        print(String(format: "memory: %d members, %.0f bytes per member (target < 2048: ratio %.2f), wire message %.0f bytes",
                     memory.members, memory.bytesPerMember, memory.bytesPerMember / 2048, memory.wireBytesPerMember))
    }
}

import Foundation
import SystemSupport
import WhereaboutsTestSupport

/// With a node killed: every node's `/healthz` once a second from the kill until the run ends,
/// each change of answer recorded with its time since the kill, so that a node that is not
/// current within the kill's timeout shows whether it became current later (once the devices
/// stopped) and which consumer or stream it waited for. When the killed node was not current in
/// time, `keep(in:)` copies the nodes' logs and each node's `/jsz` (streams, consumers with their
/// replicas) to a folder that outlives the run.
final class NodeWatch: Sendable {
    private struct State {
        var lines: [String] = []
        var lastAnswer: [Int: String] = [:]
        var currentAt: Double?
        var task: Task<Void, Never>?
    }
    private let state = LockedState(State())
    private let killed: ContinuousClock.Instant
    private let httpPorts: [Int]
    private let node: Int

    init(httpPorts: [Int], killedNode node: Int, killedAt: ContinuousClock.Instant) {
        self.httpPorts = httpPorts
        self.node = node
        self.killed = killedAt
    }

    func start() {
        let task = Task.detached { [self] in
            while !Task.isCancelled {
                for (index, port) in httpPorts.enumerated() {
                    let answer = (try? await RawHTTP.send(port: port, ["GET /healthz HTTP/1.1", "Host: 127.0.0.1", "Connection: close"]))?.body
                        .trimmingCharacters(in: .whitespacesAndNewlines) ?? "no answer"
                    let at = (ContinuousClock.now - killed).seconds
                    state.withLock { state in
                        if state.lastAnswer[index] != answer {
                            state.lastAnswer[index] = answer
                            state.lines.append(String(format: "%.1f s node %d: %@", at, index + 1, String(answer.prefix(200))))
                        }
                        if index == node, state.currentAt == nil, answer.contains(#""status":"ok""#), at > 1 { state.currentAt = at }
                    }
                }
                try? await Task.sleep(for: .seconds(1))
            }
        }
        state.withLock { $0.task = task }
    }

    func stop() { state.withLock { $0.task }?.cancel() }

    /// Seconds from the kill until the killed node answered ok, if it did.
    var current: Double? { state.withLock { $0.currentAt } }

    /// The recorded changes, one per line.
    var log: [String] { state.withLock { $0.lines } }

    /// Copies the nodes' logs and `/jsz` answers, and the recorded `/healthz` changes, to a new
    /// folder under /tmp/loadbench-diagnostics; returns its path.
    func keep(clusterDirectory: URL, alsoCopying extra: [URL] = []) async -> String {
        let stamp = ISO8601DateFormatter().string(from: Date()).replacingOccurrences(of: ":", with: "")
        let folder = URL(fileURLWithPath: "/tmp/loadbench-diagnostics/\(stamp)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for index in httpPorts.indices {
            let name = "node-\(index + 1).log"
            try? FileManager.default.copyItem(at: clusterDirectory.appendingPathComponent(name), to: folder.appendingPathComponent(name))
            if let answer = try? await RawHTTP.send(port: httpPorts[index], [
                "GET /jsz?accounts=true&streams=true&consumers=true&config=true HTTP/1.0", "Host: 127.0.0.1",
            ]) {
                try? answer.body.write(to: folder.appendingPathComponent("jsz-node-\(index + 1).json"), atomically: true, encoding: .utf8)
            }
        }
        for file in extra {
            try? FileManager.default.copyItem(at: file, to: folder.appendingPathComponent(file.lastPathComponent))
        }
        try? log.joined(separator: "\n").write(to: folder.appendingPathComponent("healthz.txt"), atomically: true, encoding: .utf8)
        return folder.path
    }
}

import Foundation
import HummingbirdWSClient
import Logging
import Synchronization

/// A one-shot event many tasks wait for.
final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let open = state.withLock { state in
                if !state.open { state.waiters.append(continuation) }
                return state.open
            }
            if open { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// What one WebSocket client saw: when its first view came, how many views, and per circle the
/// oldest member fix time in the newest view (to tell whether it got each circle's latest view).
final class ClientRecord: Sendable {
    struct State {
        /// When the WebSocket upgrade completed (the handler started).
        var upgraded: Duration?
        var firstView: Duration?
        var views = 0
        var oldestFix: [String: Int] = [:]
        var error: String?
    }

    private struct ViewProbe: Decodable {
        struct Summary: Decodable { var id: String }
        struct Member: Decodable {
            struct Fix: Decodable { var tst: Int }
            var fix: Fix?
        }
        var circle: Summary
        var generatedAt: Double
        var members: [Member]
    }

    let circles: [String]
    let path: String
    private let state = Mutex(State())

    init(path: String, circles: [String]) {
        self.path = path
        self.circles = circles
    }

    var snapshot: State { state.withLock { $0 } }

    func received(_ text: String, after elapsed: Duration) {
        let probe = try? JSONDecoder().decode(ViewProbe.self, from: Data(text.utf8))
        state.withLock { state in
            if state.firstView == nil { state.firstView = elapsed }
            state.views += 1
            if let probe {
                state.oldestFix[probe.circle.id] = probe.members.map { $0.fix?.tst ?? 0 }.min() ?? 0
            }
        }
    }

    func upgraded(after elapsed: Duration) {
        state.withLock { $0.upgraded = elapsed }
    }

    func failed(_ error: any Error) {
        state.withLock { $0.error = "\(error)" }
    }

    /// Whether the newest view of every watched circle has every member at `tst` or later.
    func hasLatest(tst: Int) -> Bool {
        state.withLock { state in circles.allSatisfy { (state.oldestFix[$0] ?? 0) >= tst } }
    }
}

enum Clients {
    /// Connects one WebSocket client to `url` and records what it receives until `stop` opens.
    static func run(port: Int, record: ClientRecord, stop: Gate, logger: Logger) async {
        let start = ContinuousClock.now
        do {
            _ = try await WebSocketClient.connect(
                url: "ws://127.0.0.1:\(port)\(record.path)", configuration: .init(maxFrameSize: 1 << 22), logger: logger
            ) { inbound, outbound, _ in
                record.upgraded(after: ContinuousClock.now - start)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for try await message in inbound.messages(maxSize: 1 << 22) {
                            if case .text(let text) = message { record.received(text, after: ContinuousClock.now - start) }
                        }
                    }
                    group.addTask {
                        await stop.wait()
                        try await outbound.close(.normalClosure, reason: nil)
                    }
                    try await group.next()
                    group.cancelAll()
                }
            }
        } catch {
            record.failed(error)
        }
    }
}

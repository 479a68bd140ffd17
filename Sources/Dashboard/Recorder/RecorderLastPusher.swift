import Foundation
import HummingbirdWebSocket
import Subscriber
import Synchronization

/// One `/ws/last` client, seen through its viewer's history scope (docs/recorder-api.md): when
/// it sends `LAST` it gets the newest location of each device it may read, one text message each
/// (the Recorder's location object, with the card and the other keys the Recorder merges in,
/// ``RecorderExtras``); from the moment it connects it also gets every newer
/// location of those devices as it is stored, never one older than it was sent before. New
/// locations are found by reading the newest of each device once a second, so two fixes of one
/// device within a second arrive as the newer one only.
struct RecorderLastPusher: Sendable {
    /// How often the history is read for new locations.
    static var pollInterval: Duration { .seconds(1) }

    let history: HistoryStore
    let source: CircleViewStore
    let viewer: Viewer

    /// The newest `tst` sent (or known at connection) per device.
    private final class Sent: Sendable {
        let tst = Mutex<[MemberID: Int]>([:])
    }

    /// Runs until the client leaves.
    func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        let sent = Sent()
        let known = try await visibleLast()
        sent.tst.withLock { tst in for location in known { tst[location.member] = location.fix.tst } }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for try await message in inbound.messages(maxSize: 4_096) {
                    guard case .text(let text) = message, text.trimmingCharacters(in: .whitespacesAndNewlines).uppercased() == "LAST" else { continue }
                    let extras = await DashboardRouter.recorderExtras(source: source, fields: nil)
                    for location in try await visibleLast() {
                        sent.tst.withLock { $0[location.member] = max($0[location.member] ?? .min, location.fix.tst) }
                        try await send(location, extras: extras, to: outbound)
                    }
                }
            }
            group.addTask {
                while true {
                    try await Task.sleep(for: Self.pollInterval)
                    let newer = try await visibleLast().filter { location in
                        sent.tst.withLock { tst in
                            guard location.fix.tst > tst[location.member] ?? .min else { return false }
                            tst[location.member] = location.fix.tst
                            return true
                        }
                    }
                    guard !newer.isEmpty else { continue }
                    let extras = await DashboardRouter.recorderExtras(source: source, fields: nil)
                    for location in newer { try await send(location, extras: extras, to: outbound) }
                }
            }
            // The client leaving ends the reader; that ends the poller too.
            try await group.next()
            group.cancelAll()
        }
    }

    /// The newest location of each device the viewer may read.
    private func visibleLast() async throws -> [HistoryLocation] {
        let scope: RecorderScope = switch viewer {
        case .open: .everyone
        case .nobody, .account: ViewerAccess.of(viewer, views: await source.views()).history
        }
        return try await history.lastLocations().filter { scope.contains($0.member) }
    }

    private func send(_ location: HistoryLocation, extras: RecorderExtras, to outbound: WebSocketOutboundWriter) async throws {
        try await outbound.write(.text(String(buffer: RecorderEncoder(format: .json, fields: nil).object(location, extras: extras))))
    }
}

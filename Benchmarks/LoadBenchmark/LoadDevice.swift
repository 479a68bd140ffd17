import Foundation
import NIOCore
import WhereaboutsCore

/// One simulated device that behaves like `whereabouts-pub` towards the broker and the
/// subscribers (docs/receipts.md): each report carries a sequence number of the device's epoch;
/// the device keeps it until a subscriber's receipt covers it and publishes again what no receipt
/// covered within ``receiptTimeout``, waiting twice as long after each round that brought no
/// receipt progress, up to 16 times (as `whereabouts-pub` does). When its connection is lost it connects to the next node and
/// publishes again what was not acknowledged, and, like `--broker-kind nats`, what was
/// acknowledged in the last 5 s (NATS acknowledges before storing; docs/cluster.md).
///
/// Like `whereabouts-pub --broker-kind nats` it keeps a clean session and reads its receipts at
/// QoS 0 (a plain NATS subscription rather than a JetStream consumer per device; docs/cluster.md):
/// receipts are retained and cumulative, so the broker sends the newest again at every
/// subscription, and one that is lost is covered by the next, or by a resend. It does so on
/// mosquitto too.
final class LoadDevice: @unchecked Sendable {  // all state is touched on `loop` only
    let index: Int
    let topic: String
    private let receiptFilter: String
    private let clientID: String
    private let ports: [Int]
    private let group: EventLoopGroup
    private let loop: EventLoop
    private let ledger: Ledger
    private let epoch: String
    private var portIndex: Int
    private var client: MQTTLoadClient?
    private var nextSeq: Int64 = 1
    /// Reports not covered by a receipt: tst, stamped payload, and when they were last acknowledged.
    private var unconfirmed: [Int64: (tst: Int, payload: String, acknowledgedAt: ContinuousClock.Instant?)] = [:]
    private var held: [(seq: Int64, at: ContinuousClock.Instant)] = []
    private var resending: RepeatedTask?
    /// The wait before unconfirmed reports go out again: ``receiptTimeout``, doubled after each
    /// round without receipt progress, reset by progress.
    private var resendWait = LoadDevice.receiptTimeout
    private var stopped = false
    static let grace: Duration = .seconds(5)
    static let receiptTimeout: Duration = .seconds(10)

    init(index: Int, user: String, ports: [Int], group: EventLoopGroup, ledger: Ledger) {
        self.index = index
        self.topic = "owntracks/\(user)/p"
        self.receiptFilter = "\(ReceiptTopic.root)/\(user)/p/+"
        self.clientID = "load-\(user)-p"
        self.ports = ports
        self.group = group
        self.loop = group.next()
        self.ledger = ledger
        self.epoch = String(format: "%016llx", UInt64.random(in: 0...UInt64.max))
        self.portIndex = index % ports.count
    }

    /// Makes the first connection and starts the resend check.
    func start() async throws {
        let client = try await MQTTLoadClient.connect(
            host: "127.0.0.1", port: ports[portIndex], clientID: clientID, credentials: nil, group: group)
        loop.execute { [self] in
            adopt(client)
            resending = loop.scheduleRepeatedTask(initialDelay: .seconds(2), delay: .seconds(2)) { [self] _ in resendUnconfirmed() }
        }
    }

    /// Publishes one report (on the device's event loop).
    func publish(tst: Int, payload: String) {
        loop.execute { [self] in
            let seq = nextSeq
            nextSeq += 1
            let settled = unconfirmed.keys.min() ?? seq
            let stamped = String(payload.dropLast()) + #","seq":\#(seq),"seq_epoch":"\#(epoch)","seq_settled":\#(settled)}"#
            unconfirmed[seq] = (tst, stamped, nil)
            ledger.trace.published(index, tst: tst, seq: seq)
            send(seq)
        }
    }

    /// Stops reconnecting and closes the connection.
    func stop() async {
        let client: MQTTLoadClient? = try? await loop.submit { [self] in
            stopped = true
            resending?.cancel()
            return self.client
        }.get()
        await client?.close()
    }

    private func adopt(_ client: MQTTLoadClient) {
        self.client = client
        client.onClose = { [self] in loop.execute { self.connectionLost() } }
        client.onMessage = { [self] _, payload in
            guard let receipt = try? JSONDecoder().decode(ReceiptMessage.self, from: Data(payload.readableBytesView)) else { return }
            loop.execute { self.receive(receipt) }
        }
        client.subscribe(filter: receiptFilter)
    }

    private func receive(_ receipt: ReceiptMessage) {
        guard receipt.epoch == epoch, let through = receipt.seq else { return }
        if unconfirmed.keys.contains(where: { $0 <= through }) { resendWait = Self.receiptTimeout }
        for seq in unconfirmed.keys where seq <= through {
            if let report = unconfirmed.removeValue(forKey: seq) {
                ledger.confirmed(index, tst: report.tst)
                ledger.trace.confirmed(index, tst: report.tst)
            }
        }
    }

    /// Publishes `seq` (again); the newest report goes out retained, an older one not (it must not
    /// replace the newer retained position). A resend for want of a receipt (`marked`) carries
    /// `"t":"r"` instead of the first copy's `"t":"t"`: the subscriber drops a duplicate by its
    /// `tst` alone, so nothing else changes, and the history's `t` tells which copy it stored
    /// (``ResendTrace``).
    private func send(_ seq: Int64, marked: Bool = false) {
        guard let report = unconfirmed[seq] else { return }
        let retain = seq == unconfirmed.keys.max()
        let payload = marked ? report.payload.replacingOccurrences(of: #""t":"t""#, with: #""t":"r""#) : report.payload
        client?.publish(topic: topic, payload: payload, retain: retain) { [self] at in
            loop.execute { [self] in
                guard unconfirmed[seq] != nil else { return }
                if unconfirmed[seq]?.acknowledgedAt == nil {
                    ledger.acknowledged(index, tst: report.tst)
                    ledger.trace.acknowledged(index, tst: report.tst)
                    held.append((seq, at))
                    held.removeAll { at - $0.at > Self.grace }
                }
                unconfirmed[seq]?.acknowledgedAt = at
            }
        }
    }

    /// What a receipt should have covered by now goes out again, oldest first.
    private func resendUnconfirmed() {
        guard client != nil else { return }
        let now = ContinuousClock.now
        let due = unconfirmed.filter { $0.value.acknowledgedAt.map { now - $0 > resendWait } ?? false }.keys.sorted()
        if !due.isEmpty { resendWait = min(resendWait * 2, Self.receiptTimeout * 16) }
        for seq in due {
            unconfirmed[seq]?.acknowledgedAt = now
            ledger.resent()
            if let tst = unconfirmed[seq]?.tst { ledger.trace.resent(index, tst: tst) }
            send(seq, marked: true)
        }
    }

    private func connectionLost() {
        client = nil
        guard !stopped else { return }
        portIndex = (portIndex + 1) % ports.count
        let port = ports[portIndex]
        loop.scheduleTask(in: .milliseconds(500)) { [self] in
            Task {
                do {
                    let client = try await MQTTLoadClient.connect(host: "127.0.0.1", port: port, clientID: clientID, credentials: nil, group: group)
                    loop.execute { [self] in
                        adopt(client)
                        // What a dying node may have acknowledged without storing, then what it never acknowledged.
                        let now = ContinuousClock.now
                        for report in held where now - report.at <= Self.grace { send(report.seq) }
                        for seq in unconfirmed.keys.sorted() where unconfirmed[seq]?.acknowledgedAt == nil { send(seq) }
                    }
                } catch {
                    loop.execute { self.connectionLost() }
                }
            }
        }
    }
}

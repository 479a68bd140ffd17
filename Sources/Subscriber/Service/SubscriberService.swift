import Foundation
import Logging
import ServiceLifecycle
import UnixSignals
import WhereaboutsMQTT

/// The subscriber as one long-running service: subscribes to the members of the store's circles,
/// ingests their messages, publishes the views, and reloads the circles file on change or SIGHUP.
///
/// Create it *before* the connection connects: it opens the connection's message stream at once,
/// so the messages a persistent session delivers right after connecting are not missed. The
/// connection must have a persistent session (clean session off, a stable client id) so that
/// nothing published while the subscriber restarts is lost. Subscriptions and publishes use
/// ``SubscriberConfiguration/qos``. Ends on graceful shutdown or cancellation.
package struct SubscriberService<Connection: BrokerConnection>: Service {
    /// The state this service feeds; the dashboard reads the same store.
    package let store: CircleViewStore
    let connection: Connection
    private let messages: Connection.Messages
    let configuration: SubscriberConfiguration
    let logger: Logger
    let history: HistoryWriter?
    let onSubscribed: (@Sendable () async -> Void)?
    /// What ingest took in, for receipts; `nil` when ``SubscriberConfiguration/receiptID`` is.
    let receipts: ReceiptLedger?

    /// Creates the service and opens the connection's message stream. `onSubscribed` runs once
    /// the broker acknowledged the subscriptions to every member (from then on nothing a member
    /// publishes is missed). With `history`, every accepted location and transition is handed to
    /// it (run the writer in the same service group, before this service).
    package init(
        store: CircleViewStore, connection: Connection, configuration: SubscriberConfiguration, logger: Logger,
        history: HistoryWriter? = nil, onSubscribed: (@Sendable () async -> Void)? = nil
    ) {
        self.history = history
        self.store = store
        self.connection = connection
        self.messages = connection.messages
        self.configuration = configuration
        self.logger = logger
        self.onSubscribed = onSubscribed
        receipts = configuration.receiptID == nil ? nil : ReceiptLedger()
    }

    /// The receipt sender, when receipts are on.
    private var receiptSender: ReceiptSender<Connection>? {
        guard let receipts, let id = configuration.receiptID else { return nil }
        // Durable: the history committed it; else the status file was written after it; else applied.
        let durable: @Sendable () -> Int
        if let recorder = history?.recorder {
            durable = { recorder.committedThrough }
        } else if configuration.statusPath != nil {
            durable = { receipts.statusDurableThrough }
        } else {
            durable = { Int.max }
        }
        return ReceiptSender(
            ledger: receipts, connection: connection, subscriberID: id, qos: configuration.receiptQoS,
            retainInterval: configuration.receiptRetainInterval, publishTimeout: configuration.publishTimeout,
            durableThrough: durable, logger: logger)
    }

    /// Subscribes and runs ingest, view publishing and reloading until graceful shutdown.
    package func run() async throws {
        let router = TopicRouter(prefix: configuration.topicPrefix)
        let statusFile = configuration.statusPath.map(StatusFile.init(path:))
        if let statusFile { await restore(from: statusFile) }
        // Graceful shutdown cancels the whole group at once; the loops themselves iterate plainly
        // (a per-message `cancelOnGracefulShutdown()` merge costs more than the parsing).
        try await cancelWhenGracefulShutdown {
            try await withThrowingTaskGroup(of: Void.self) { group in
                // Ingest starts before the subscriptions are made: a persistent session delivers
                // what the broker queued right after connecting, and it is handled while the
                // subscriptions go out instead of piling up in memory until they are acknowledged.
                group.addTask { try await ingest(router: router) }
                group.addTask {
                    let members = await store.trackedMembers()
                    try await subscribe(members, router: router)
                    logger.info("Subscribed to the circles' members.", metadata: ["whereabouts.members": "\(members.count)"])
                    await receiptSender?.announce(members)
                    await onSubscribed?()
                    await ViewPublisher(store: store, connection: connection, configuration: configuration, logger: logger).run()
                }
                if let statusFile {
                    group.addTask { await keepStatus(in: statusFile) }
                }
                if let sender = receiptSender {
                    group.addTask { await sender.run() }
                }
                if let path = configuration.circlesPath {
                    let watcher = CirclesFileWatcher(
                        path: path, pollInterval: configuration.reloadPollInterval, brokerKind: configuration.brokerKind, logger: logger)
                    group.addTask { await watcher.watch { await reload($0, router: router) } }
                    group.addTask {
                        for await _ in await UnixSignalsSequence(trapping: .sighup) {
                            await watcher.load(reason: "SIGHUP") { await reload($0, router: router) }
                        }
                    }
                }
                try await group.next()
                group.cancelAll()
            }
        }
        if let statusFile, let records = await store.takeStatusSnapshot() { save(records, to: statusFile) }
        logger.info("Stopped the subscriber.")
    }

    private func restore(from file: StatusFile) async {
        do {
            let records = try file.load()
            let restored = await store.restoreStatus(records)
            logger.info("Restored member statuses.", metadata: ["whereabouts.file": "\(file.path)", "whereabouts.members": "\(restored)"])
        } catch {
            logger.error("\(error)", metadata: ["whereabouts.file": "\(file.path)"])
        }
    }

    /// Writes the statuses when they change, at most once per
    /// ``SubscriberConfiguration/statusWriteInterval``, until cancelled: the first change after a
    /// quiet spell at once, the changes during an interval at its end. Between changes it sleeps
    /// (``CircleViewStore/waitForStatusWork()``) and the file is not touched. With receipts and
    /// no history a report also asks for a round, which makes it durable.
    /// A failing write is logged once (not every interval) and retried every interval;
    /// the first success after failures is logged too.
    private func keepStatus(in file: StatusFile) async {
        var failing = false
        while !Task.isCancelled {
            await store.waitForStatusWork()
            if Task.isCancelled { break }
            // Reports noted before this point are in the snapshot: durable once it is written.
            let generation = receipts?.beginStatusSave()
            if let records = await store.takeStatusSnapshot() {
                let saved = save(records, to: file, quietly: failing)
                if saved, let generation { receipts?.statusSaved(generation) }
                if saved, failing { logger.info("The status file is written again.", metadata: ["whereabouts.file": "\(file.path)"]) }
                if !saved { await store.markStatusUnsaved() }  // retried after the interval
                failing = !saved
            } else if let generation, !failing {
                receipts?.statusSaved(generation)
            }
            try? await Task.sleep(for: .seconds(configuration.statusWriteInterval))
        }
    }

    @discardableResult
    private func save(_ records: [StatusRecord], to file: StatusFile, quietly: Bool = false) -> Bool {
        do {
            try file.save(records)
            return true
        } catch {
            if !quietly { logger.warning("\(error)", metadata: ["whereabouts.file": "\(file.path)"]) }
            return false
        }
    }

    private func ingest(router: TopicRouter) async throws {
        var ingestor = Ingestor(store: store, router: router, settings: configuration.settings, history: history?.recorder)
        ingestor.expectsOtherDevices = configuration.subscription == .wildcard
        if let receipts { ingestor.receipts = ReceiptIntake(ledger: receipts, statusFile: configuration.statusPath != nil) }
        try await ingestor.run(messages)
    }

    private func reload(_ file: CirclesFile, router: TopicRouter) async {
        let change = await store.replaceCircles(file)
        if let sender = receiptSender {
            await sender.withdraw(change.removed)
            await sender.announce(change.added)
        }
        guard configuration.subscription == .perMember else { return }  // the wildcards cover every device
        do {
            try await subscribe(change.added, router: router)
            let filters = change.removed.flatMap(router.filters(for:))
            for chunk in filters.chunks(of: configuration.subscribeBatchSize) {
                try await connection.unsubscribe(from: Array(chunk), timeout: nil)
            }
        } catch {
            logger.error("Could not update the subscriptions after a reload.", metadata: ["whereabouts.error": "\(error)"])
        }
    }

    private func subscribe(_ members: [MemberID], router: TopicRouter) async throws {
        let filters = configuration.subscription == .wildcard ? router.wildcardFilters : members.flatMap(router.filters(for:))
        for chunk in filters.chunks(of: configuration.subscribeBatchSize) {
            try await connection.subscribe(to: Array(chunk), qos: configuration.qos, timeout: nil)
        }
    }
}

extension Array {
    func chunks(of size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: Swift.max(1, size)).map { self[$0..<Swift.min($0 + size, count)] }
    }
}

import Foundation
import Logging
import NIOCore
import NIOPosix
import WhereaboutsCore
import WhereaboutsMQTT
import WhereaboutsTestSupport
import SystemSupport

#if canImport(Glibc)
import Glibc
#endif

/// One measured run: a broker (one mosquitto, or the three-node NATS cluster), two
/// `whereabouts-sub --shard i/2`, N simulated devices publishing for a while, and a watcher of
/// the circle views that times each report from its publish to the first view that shows it.
struct LoadRun {
    enum BrokerChoice: String { case mosquitto, nats }

    var broker: BrokerChoice
    var devices: Int
    var seconds: Double
    /// Seconds between the last connection and the first report (`--settle`).
    var settle: Double = 0
    var killNode: Bool
    var subscriberBinary: String
    /// NATS: a node configuration instead of the shipped one (`--nats-configs`).
    var natsConfiguration: URL? = nil
    /// Whether the row names the subscriber binary (when several are compared).
    var labelsSubscriber = false
    /// The QoS of the view watcher's subscription (`--watcher-qos`).
    var watcherQoS: QoS = .atMostOnce
    /// Whether a persistent QoS 1 session of the benchmark's own (its hand-written client, not
    /// libmosquitto) reads every report besides the subscribers (`--trace-session`).
    var traceSession = false

    /// What a run measured.
    struct Result {
        var label: String
        var reports: Int
        var acknowledged: Int
        var shown: Int
        var lost: Int
        /// Acknowledged reports that neither subscriber's history holds (the end-to-end count).
        var lostFromHistory: Int
        var lostExamples: [String]
        /// Acknowledged reports no receipt covered by the end, and the reports sent again.
        var unconfirmed: Int
        var unconfirmedExamples: [String]
        var resent: Int
        var p50: Double
        var p99: Double
        var subscriberCPUMicrosPerMessage: Double
        var subscriberRSSMB: Double
        var brokerCPUPercent: Double
        var connectSeconds: Double
        /// With a node killed: seconds from its SIGKILL until it was running again and current
        /// (`/healthz` ok; the script's 2 s restart delay included); infinite when it was not
        /// current within 120 s.
        var nodeCurrentSeconds: Double?
        /// The machine's 1-minute load average when publishing started and when the run ended.
        var loadAverages: (start: Double, end: Double)
        /// NATS: the JetStream work while the devices published, per stream, from node 2's `/jsz`.
        var jetStream: String?
        /// When views were lost: whether each node's retained views hold the lost reports, and
        /// the watcher's connection changes.
        var missedViews: String?
        /// With a node killed and not current in time: when it was, and where its logs were kept.
        var nodeDiagnostics: String? = nil
        /// The latency per 5 s of sending time (``Ledger/latencyProfile(from:window:)``): where the tail sits.
        var latencyProfile: String = ""
        /// Where the first copies of the resent reports went (``ResendTrace/resendSummary(stored:duplicates:)``).
        var resends: String = ""
        /// NATS: the subscribers' consumers on `$MQTT_msgs` as ``ConsumerWatch`` saw them.
        var consumers: String?
    }

    /// What a run started, so that a run that fails half-way stops it all: left running, one
    /// failed run's subscribers and device connections loaded the next runs.
    final class Started {
        var cluster: NATSCluster?
        var processes: [ChildProcess] = []
        var devices: [LoadDevice] = []
        var group: MultiThreadedEventLoopGroup?
        var watcher: MQTTClient?
        var traceWatcher: MQTTClient?
        var traceSessionClosed: LockedState<Bool>?
        var sessionGroup: MultiThreadedEventLoopGroup?

        func stop() async {
            for device in devices { await device.stop() }
            try? await group?.shutdownGracefully()
            await watcher?.disconnect()
            await traceWatcher?.disconnect()
            try? await sessionGroup?.shutdownGracefully()
            for process in processes where process.isRunning { process.signal(SIGKILL) }
            for process in processes { _ = await process.waitForExit() }
            await cluster?.stop()
        }
    }

    func run() async throws -> Result {
        let started = Started()
        do {
            return try await run(started)
        } catch {
            await started.stop()
            throw error
        }
    }

    private func run(_ resources: Started) async throws -> Result {
        let dir = try TestPaths.makeTemporaryDirectory(prefix: "load-\(broker.rawValue)-\(devices)")
        defer { try? FileManager.default.removeItem(at: dir) }
        var fleet = Fleet(count: devices)
        let circlesPath = dir.appendingPathComponent("circles.yaml")
        try fleet.circlesYAML.write(to: circlesPath, atomically: true, encoding: .utf8)

        // The broker.
        var ports: [Int] = []
        var brokerPIDs: () -> [pid_t] = { [] }
        var cluster: NATSCluster?
        var mosquitto: ChildProcess?
        switch broker {
        case .mosquitto:
            let port = try FreePort.find()
            let configuration = dir.appendingPathComponent("mosquitto.conf")
            try "listener \(port) 127.0.0.1\nallow_anonymous true\npersistence false\nlog_type error\nmax_queued_messages 100000\n"
                .write(to: configuration, atomically: true, encoding: .utf8)
            let process = try ChildProcess.spawn("/usr/sbin/mosquitto", ["-c", configuration.path], logFile: dir.appendingPathComponent("mosquitto.log"))
            mosquitto = process
            resources.processes.append(process)
            try await waitUntil("mosquitto to listen", timeout: .seconds(10)) { LoopbackSocket.isOpen(port: port) }
            ports = [port]
            brokerPIDs = { [process.pid] }
        case .nats:
            let started = try await NATSCluster.start(configuration: natsConfiguration)
            cluster = started
            resources.cluster = started
            ports = started.mqttPorts
            brokerPIDs = { (0..<3).compactMap { try? started.pid(ofNode: $0) } }
        }
        let brokerList = ports.map { "mqtt://127.0.0.1:\($0)" }

        // Two subscriber instances, each owning half the circles.
        var subscribers: [ChildProcess] = []
        // Each serves /metrics (its duplicate count, read at the end) on a port of its own.
        var metricsPorts: [Int] = []
        for shard in 0..<2 {
            let order = (0..<brokerList.count).map { brokerList[($0 + shard) % brokerList.count] }
            let log = dir.appendingPathComponent("sub-\(shard).log")
            let httpPort = try FreePort.find()
            metricsPorts.append(httpPort)
            let subscriber = try ChildProcess.spawn(subscriberBinary, [
                "--circles", circlesPath.path, "--broker", order.joined(separator: ","), "--broker-kind", broker == .nats ? "nats" : "mosquitto",
                "--shard", "\(shard)/2", "--state-file", "none", "--client-id", "load-sub-\(shard)",
                "--history", dir.appendingPathComponent("history-\(shard).sqlite").path, "--http-port", "\(httpPort)",
            ], logFile: log)
            subscribers.append(subscriber)
            resources.processes.append(subscriber)
            try await waitUntil("subscriber \(shard) subscribed", timeout: .seconds(300), interval: .milliseconds(200)) {
                ((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains("Subscribed to the circles' members.")
            }
        }

        // The watcher: every view, matched to the reports it shows.
        let ledger = Ledger(devices: devices)
        var watcherConfiguration = MQTTConfiguration(host: "127.0.0.1", port: ports[0], clientID: "load-watcher", cleanSession: true)
        watcherConfiguration.failover = ports.dropFirst().map { .init(host: "127.0.0.1", port: $0) }
        watcherConfiguration.protocolVersion = (broker == .nats ? BrokerKind.nats : .mosquitto).protocolVersion
        // Back within about 2 s of a node's return, like the publisher; every SUBACK after a
        // reconnect is checked by the client and a refused one retried with backoff until granted.
        watcherConfiguration.reconnect = MQTTReconnectPolicy(initialDelay: .milliseconds(250), maximumDelay: .seconds(2))
        var logger = Logger(label: "load")
        logger.logLevel = .warning
        let watcher = MQTTClient(configuration: watcherConfiguration, logger: logger)
        resources.watcher = watcher
        let views = watcher.messages
        let watching = Task.detached {
            for await message in views { ledger.view(message.payload) }
        }
        // The watcher's connection changes, to explain views it missed.
        let watcherStates = LockedState<[String]>([])
        let watcherStart = ContinuousClock.now
        let stateUpdates = watcher.stateUpdates
        let stateWatching = Task.detached {
            for await state in stateUpdates {
                let at = (ContinuousClock.now - watcherStart).seconds
                watcherStates.withLock { $0.append(String(format: "%.1f s %@", at, "\(state)")) }
            }
        }
        try await watcher.connect()
        do {
            try await watcher.subscribe(to: Self.viewFilter, qos: watcherQoS)
        } catch MQTTError.subscriptionRefused, MQTTError.timedOut {
            // Retried by the client until granted (a NATS node may refuse the consumer at first).
            try await waitUntil("the view watcher's subscription", timeout: .seconds(300), interval: .milliseconds(200)) {
                watcher.ungrantedSubscriptions.isEmpty
            }
        }

        // The trace watcher: every report and every receipt, as a plain QoS 0 subscription on
        // node 2 (never killed; on NATS no JetStream consumer), to tell whether NATS carried a
        // report's first copy at all and when the subscriber published the receipt covering it.
        var traceConfiguration = MQTTConfiguration(host: "127.0.0.1", port: ports[1 % ports.count], clientID: "load-trace", cleanSession: true)
        traceConfiguration.protocolVersion = watcherConfiguration.protocolVersion
        traceConfiguration.reconnect = watcherConfiguration.reconnect
        let traceWatcher = MQTTClient(configuration: traceConfiguration, logger: logger)
        resources.traceWatcher = traceWatcher
        let traced = traceWatcher.messages
        let tracing = Task.detached {
            for await message in traced { Self.trace(message.topic, message.payload, into: ledger) }
        }
        try await traceWatcher.connect()
        try await traceWatcher.subscribe(to: [(filter: "owntracks/+/+", qos: .atMostOnce), (filter: "\(ReceiptTopic.root)/+/+/+", qos: .atMostOnce)])
        // `--trace-session`: a persistent QoS 1 session like the subscribers', on node 3, through
        // a client that is not libmosquitto: does it miss the reports they miss?
        let sessionGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        resources.sessionGroup = sessionGroup
        var traceSessionClient: MQTTLoadClient?
        var traceSessionClosed = false
        if traceSession {
            let client = try await MQTTLoadClient.connect(
                host: "127.0.0.1", port: ports[2 % ports.count], clientID: "load-trace-session", credentials: nil, group: sessionGroup, cleanSession: false)
            let closed = LockedState(false)
            client.onClose = { closed.withLock { $0 = true } }
            client.onMessage = { topic, payload in Self.traceSession(topic, Data(payload.readableBytesView), into: ledger) }
            client.subscribe(filter: "owntracks/+/+", atLeastOnce: true)
            traceSessionClient = client
            resources.traceSessionClosed = closed
        }

        // The devices: connected a few hundred at a time.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        resources.group = group
        let connectStart = ContinuousClock.now
        let fleetDevices = fleet.devices
        let loadDevices = fleetDevices.indices.map { LoadDevice(index: $0, user: fleetDevices[$0].user, ports: ports, group: group, ledger: ledger) }
        resources.devices = loadDevices
        for chunk in stride(from: 0, to: devices, by: 200) {
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                for device in loadDevices[chunk..<min(chunk + 200, devices)] { tasks.addTask { try await device.start() } }
                try await tasks.waitForAll()
            }
        }
        let connectSeconds = Double((ContinuousClock.now - connectStart).components.seconds)
        if settle > 0 { try await Task.sleep(for: .milliseconds(Int64(settle * 1000))) }

        // Publishing: each device on its own schedule for `seconds`.
        let loadAtStart = Self.loadAverage()
        let cpuBefore = subscribers.map { Self.cpuTicks($0.pid) }
        let brokerBefore = brokerPIDs().map(Self.cpuTicks).reduce(0, +)
        let fleetState = LockedState(fleet)
        // Node 2 (never killed) answers for the cluster: every stream is replicated to all nodes.
        let streamsBefore = await cluster?.streamCounters(ofNode: 1)
        let consumerWatch = cluster.map { ConsumerWatch(httpPorts: $0.httpPorts) }
        consumerWatch?.start()
        let acknowledgedBefore = ledger.summary().acknowledged
        let started = ContinuousClock.now
        let end = started + .seconds(seconds)
        var schedules: [RepeatedTask] = []
        for device in loadDevices {
            let plan = fleetDevices[device.index]
            let task = group.next().scheduleRepeatedTask(
                initialDelay: .milliseconds(Int64(plan.offset * 1000)), delay: .milliseconds(Int64(plan.interval * 1000))
            ) { task in
                guard ContinuousClock.now < end else { task.cancel(); return }
                let tst = Int(Date().timeIntervalSince1970)
                let payload = fleetState.withLock { $0.report(device.index, after: plan.interval, tst: tst) }
                ledger.sent(device.index, tst: tst, at: .now)
                device.publish(tst: tst, payload: payload)
            }
            schedules.append(task)
        }
        var nodeCurrent: Duration?
        var nodeNotCurrent = false
        var nodeWatch: NodeWatch?
        if killNode, let cluster {
            try await Task.sleep(for: .seconds(seconds / 2))
            let watch = NodeWatch(httpPorts: cluster.httpPorts, killedNode: 0, killedAt: .now)
            watch.start()
            nodeWatch = watch
            do {
                nodeCurrent = try await cluster.killAndAwaitRestart(node: 0, timeout: .seconds(120))
            } catch {
                // Recorded, not fatal: the run's loss figures still count.
                nodeNotCurrent = true
            }
        }
        try await Task.sleep(until: end, clock: .continuous)
        for task in schedules { task.cancel() }
        let runSeconds = (ContinuousClock.now - started).seconds
        let streamsAfter = await cluster?.streamCounters(ofNode: 1)
        let jetStream = Self.jetStreamWork(
            before: streamsBefore, after: streamsAfter, reports: ledger.summary().acknowledged - acknowledgedBefore, seconds: runSeconds)
        // Trailing views: up to 90 s for every device's newest acknowledged report to show (a
        // saturated cluster's views lag by tens of seconds; what is not shown by then counts as lost).
        try? await waitUntil("the last views", timeout: .seconds(90), interval: .milliseconds(250)) { ledger.allShown }
        // And the receipts: a report no receipt covered is sent again after 10 s (LoadDevice).
        try? await waitUntil("the last receipts", timeout: .seconds(90), interval: .milliseconds(250)) { ledger.allConfirmed }
        let receipts = ledger.receiptSummary()
        consumerWatch?.stop()
        // The subscribers' duplicates, before they stop.
        var duplicates: Int? = 0
        let duplicatesReadAt = ResendTrace.now
        for port in metricsPorts {
            let count = await Self.duplicateLocations(metricsPort: port)
            duplicates = count.flatMap { count in duplicates.map { $0 + count } }
        }
        // A killed node not current in time: was it current later, and what did it wait for?
        var nodeDiagnostics: String?
        if let nodeWatch, let cluster {
            nodeWatch.stop()
            if nodeNotCurrent || receipts.unconfirmed > 0 {
                let later = nodeWatch.current.map { String(format: "current %.1f s after the kill", $0) } ?? "still not current at the end"
                let kept = await nodeWatch.keep(clusterDirectory: cluster.directory, alsoCopying: (0..<2).flatMap { shard in
                    ["sub-\(shard).log", "history-\(shard).sqlite"].map { dir.appendingPathComponent($0) }
                })
                nodeDiagnostics = "\(later); logs and /jsz in \(kept); /healthz: " + nodeWatch.log.suffix(16).joined(separator: " | ")
            }
        }
        // Views the watcher missed: are they in the cluster's retained views (then the watcher
        // missed them), or not even there (the subscriber's view never reached the cluster)?
        var missedViews: String?
        if ledger.summary().lost > 0 {
            var parts: [String] = []
            for (node, port) in ports.enumerated() {
                let retained = await Self.retainedViews(port: port)
                let check = ledger.lostAgainstRetained(retained)
                parts.append("node \(node + 1): \(retained.count) retained views, \(check.inRetained) lost reports in them, \(check.notInRetained) not (\(check.examples.joined(separator: ", ")))")
            }
            missedViews = parts.joined(separator: "; ") + "; watcher: " + watcherStates.withLock { $0.suffix(12).joined(separator: ", ") }
        }
        stateWatching.cancel()
        let cpuAfter = subscribers.map { Self.cpuTicks($0.pid) }
        let brokerAfter = brokerPIDs().map(Self.cpuTicks).reduce(0, +)
        let rss = subscribers.map { Self.rssMB($0.pid) }.reduce(0, +)
        let summary = ledger.summary()
        let loadAtEnd = Self.loadAverage()
        // The loss figures count on the watcher having seen every view: its subscription must be
        // in force at the end (after a node kill it was restored, and refusals retried).
        let watcherRefusals = watcher.subscriptionFailures.values.reduce(0, +)
        let watcherUngranted = watcher.ungrantedSubscriptions

        for device in loadDevices { await device.stop() }
        try? await group.shutdownGracefully()
        await watcher.disconnect()
        watching.cancel()
        await traceWatcher.disconnect()
        tracing.cancel()
        traceSessionClosed = resources.traceSessionClosed?.withLock { $0 } ?? false
        await traceSessionClient?.close()
        try? await sessionGroup.shutdownGracefully()
        resources.sessionGroup = nil
        for subscriber in subscribers { subscriber.signal(SIGTERM) }
        for subscriber in subscribers { _ = await subscriber.waitForExit() }
        mosquitto?.signal(SIGTERM)
        if let mosquitto { _ = await mosquitto.waitForExit() }
        await cluster?.stop()
        // Loss counted end to end: every acknowledged report must be in one shard's history.
        var stored: [String: Set<Int>] = [:]
        var rows: [Int: [Int: ResendTrace.Stored]] = [:]
        for shard in 0..<2 {
            for row in try Self.historyLocations(dir.appendingPathComponent("history-\(shard).sqlite")) {
                stored[row.user, default: []].insert(row.tst)
                guard let index = ledger.index(ofUser: row.user) else { continue }
                let earlier = rows[index]?[row.tst].map { $0.receivedAt <= row.receivedAt } ?? false
                if !earlier { rows[index, default: [:]][row.tst] = ResendTrace.Stored(receivedAt: row.receivedAt, trigger: row.trigger) }
            }
        }
        let historyLoss = ledger.lostFromHistory(stored)
        let resends = ledger.trace.resendSummary(stored: rows, duplicates: duplicates, duplicatesReadAt: duplicatesReadAt, session: traceSession)
            + (traceSessionClosed ? "; the benchmark's persistent session lost its connection" : "")

        guard watcherUngranted.isEmpty else { throw WatcherNotSubscribed(refusals: watcherRefusals) }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let subscriberSeconds = Double(zip(cpuAfter, cpuBefore).map { $0 - $1 }.reduce(0, +)) / ticks
        return Result(
            label: "\(broker.rawValue)\(natsConfiguration.map { " [\($0.lastPathComponent)]" } ?? "")\(labelsSubscriber ? " [\(URL(fileURLWithPath: subscriberBinary).lastPathComponent)]" : "")\(watcherQoS == .atMostOnce ? "" : " (watcher QoS 1)")\(killNode ? " (node killed)" : "") \(devices)"
                + (watcherRefusals > 0 ? " (view watcher re-subscribed after \(watcherRefusals) refusals)" : ""),
            reports: summary.sent, acknowledged: summary.acknowledged, shown: summary.shown, lost: summary.lost,
            lostFromHistory: historyLoss.lost, lostExamples: historyLoss.examples,
            unconfirmed: receipts.unconfirmed, unconfirmedExamples: receipts.examples, resent: receipts.resent,
            p50: summary.p50, p99: summary.p99,
            subscriberCPUMicrosPerMessage: summary.acknowledged == 0 ? 0 : subscriberSeconds * 1e6 / Double(summary.acknowledged),
            subscriberRSSMB: rss,
            brokerCPUPercent: Double(brokerAfter - brokerBefore) / ticks / runSeconds * 100,
            connectSeconds: connectSeconds, nodeCurrentSeconds: nodeNotCurrent ? .infinity : nodeCurrent?.seconds,
            loadAverages: (loadAtStart, loadAtEnd), jetStream: jetStream, missedViews: missedViews,
            nodeDiagnostics: nodeDiagnostics, latencyProfile: ledger.latencyProfile(from: started, window: .seconds(5)),
            resends: resends,
            consumers: consumerWatch.map { "\($0.summary); QoS 1 reports published (first copies acknowledged and resends): \(receipts.resent + summary.acknowledged)" })
    }

    /// Hands one message of the trace watcher to the ledger's ``ResendTrace``: a report
    /// (`owntracks/d<index>/p`, its `tst` and whether its `t` marks a resend) or a receipt
    /// (`whereabouts/receipts/d<index>/p/<subscriber>`, its `seq`).
    static func trace(_ topic: String, _ payload: Data, into ledger: Ledger) {
        let levels = topic.split(separator: "/")
        guard let object = try? JSONSerialization.jsonObject(with: payload) as? [String: Any] else { return }
        if levels.count == 3, levels[0] == "owntracks", let index = ledger.index(ofUser: String(levels[1])), let tst = object["tst"] as? Int {
            ledger.trace.reportSeen(index, tst: tst, resend: (object["t"] as? String) == "r")
        } else if levels.count == 5, topic.hasPrefix(ReceiptTopic.root + "/"), let index = ledger.index(ofUser: String(levels[2])),
                  let seq = (object["seq"] as? NSNumber)?.int64Value {
            ledger.trace.receiptSeen(index, seq: seq)
        }
    }

    /// Hands one report the benchmark's own persistent session got to the ledger's ``ResendTrace``.
    static func traceSession(_ topic: String, _ payload: Data, into ledger: Ledger) {
        let levels = topic.split(separator: "/")
        guard levels.count == 3, let index = ledger.index(ofUser: String(levels[1])),
              let object = try? JSONSerialization.jsonObject(with: payload) as? [String: Any], let tst = object["tst"] as? Int else { return }
        ledger.trace.sessionSeen(index, tst: tst, resend: (object["t"] as? String) == "r")
    }

    /// A subscriber's `whereabouts_sub_ingest_total{outcome="duplicate",reason="location"}` from
    /// its `/metrics` (0 when the series is not there yet: no duplicate); nil when it does not answer.
    static func duplicateLocations(metricsPort: Int) async -> Int? {
        guard let answer = try? await RawHTTP.send(port: metricsPort, ["GET /metrics HTTP/1.0", "Host: 127.0.0.1"]) else { return nil }
        guard answer.body.contains("whereabouts_sub_ingest_total") else { return nil }
        for line in answer.body.split(separator: "\n") where line.hasPrefix("whereabouts_sub_ingest_total{")
            && line.contains(#"outcome="duplicate""#) && line.contains(#"reason="location""#) {
            return Int(Double(line.split(separator: " ").last ?? "") ?? 0)
        }
        return 0
    }

    /// Every retained circle view a fresh clean session on `port` gets when it subscribes (QoS 0),
    /// read with Debian's `mosquitto_sub` for 8 s (one view per line: the views are one-line JSON).
    static func retainedViews(port: Int) async -> [Data] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_sub")
        process.arguments = ["-h", "127.0.0.1", "-p", "\(port)", "-V", "mqttv311", "-q", "0", "-i", "load-retained-check-\(port)",
                             "-t", viewFilter, "-W", "8"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return [] }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return data.split(separator: UInt8(ascii: "\n")).map { Data($0) }
    }

    /// The JetStream work between two snapshots of a node's streams, per stream: writes (last
    /// sequence) per second and per acknowledged report, consumer deliveries and acknowledgements
    /// per report, and the consumers at the end.
    static func jetStreamWork(
        before: [String: NATSCluster.StreamCounters]?, after: [String: NATSCluster.StreamCounters]?, reports: Int, seconds: Double
    ) -> String? {
        guard let before, let after, reports > 0 else { return nil }
        let perReport = { (count: Int) in String(format: "%.2f", Double(count) / Double(reports)) }
        return after.sorted { $0.key < $1.key }.map { name, a in
            let b = before[name]
            let writes = a.lastSequence - (b?.lastSequence ?? 0)
            let delivered = a.delivered - (b?.delivered ?? 0), acknowledged = a.acknowledged - (b?.acknowledged ?? 0)
            return "\(name): \(writes) writes (\(String(format: "%.0f", Double(writes) / seconds))/s, \(perReport(writes))/report), "
                + "\(a.consumers) consumers delivering \(perReport(delivered))/report, acknowledged \(perReport(acknowledged))/report, "
                + "\(a.messages) messages \(a.bytes / 1024) KiB at the end"
        }.joined(separator: "; ") + " (\(reports) reports acknowledged in \(Int(seconds)) s)"
    }

    /// The 1-minute load average (`/proc/loadavg`), 0 when unreadable.
    static func loadAverage() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return 0 }
        return Double(text.split(separator: " ").first ?? "") ?? 0
    }

    /// The filter of the circle views the watcher times.
    static let viewFilter = "whereabouts/circles/+/view"

    /// The run's view watcher ended without its subscription in force: it may have missed views,
    /// so the run's loss figures would mean nothing.
    struct WatcherNotSubscribed: Error, CustomStringConvertible {
        var refusals: Int
        var description: String {
            "the view watcher's subscription was not in force at the end (\(refusals) refused or unanswered attempts): its loss figures would mean nothing"
        }
    }

    /// One location row of a subscriber's history: whose, its `tst`, its `t` (a resend's is `r`),
    /// and when the subscriber took it in (epoch seconds).
    struct HistoryLocationRow {
        var user: String
        var tst: Int
        var trigger: String
        var receivedAt: Double
    }

    /// Every location a subscriber's history file holds, read with Debian's `sqlite3` command
    /// after the subscriber stopped.
    static func historyLocations(_ file: URL) throws -> [HistoryLocationRow] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = ["-readonly", "-separator", " ", file.path,
                             "SELECT m.user, l.tst, ifnull(l.t, '-'), printf('%.3f', l.received_at) FROM location l JOIN member m ON m.id = l.member;"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw HistoryUnreadable(file: file.path, status: process.terminationStatus) }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count == 4, let tst = Int(fields[1]), let receivedAt = Double(fields[3]) else { return nil }
            return HistoryLocationRow(user: String(fields[0]), tst: tst, trigger: String(fields[2]), receivedAt: receivedAt)
        }
    }

    /// `sqlite3` could not read a subscriber's history after the run.
    struct HistoryUnreadable: Error, CustomStringConvertible {
        var file: String
        var status: Int32
        var description: String { "sqlite3 could not read the history \(file) (exit status \(status))" }
    }

    /// User plus system CPU time of `pid` in clock ticks (`/proc/<pid>/stat` fields 14 and 15).
    static func cpuTicks(_ pid: pid_t) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return 0 }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13 else { return 0 }
        return (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
    }

    /// Resident memory of `pid` in MB (`VmRSS`).
    static func rssMB(_ pid: pid_t) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return 0 }
        return (Double(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) / 1024
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

// Dashboard WebSocket fan-out against the real whereabouts-sub binary (issue 9): how long the
// first view takes when hundreds of clients connect at once, whether every client ends with each
// circle's latest view while fixes keep arriving, and whether resident memory comes back after the
// clients leave. Build and run in release:
//
//   swift build -c release --product whereabouts-sub --product DashboardBenchmark
//   .build/release/DashboardBenchmark [--binary .build/release/whereabouts-sub] [--clients 500]
//       [--memory-clients 1800] [--circles 20] [--members 5] [--seconds 8]
//
// The baseline, measured in the same run, is the first view of one client connecting alone.
import ArgumentParser
import Foundation
import Logging
import WhereaboutsMQTT
import WhereaboutsTestSupport

/// The load to put on the server, and the server binary under test.
struct Options: ParsableArguments {
    @Option(help: "The whereabouts-sub binary to measure (a release build for numbers to quote).")
    var binary = ".build/release/whereabouts-sub"

    @Option(help: "The number of WebSocket clients connecting at once (every 10th on /ws, the rest on /api/circles/<id>/ws).")
    var clients = 500

    @Option(help: "The number of connections of the memory part, held until each has its first view, then closed; 0 skips it.")
    var memoryClients = 1800

    @Option(help: "The number of circles the server is configured with.")
    var circles = 20

    @Option(help: "The number of members in each circle; each reports a fix once a second.")
    var members = 5

    @Option(help: "Seconds of fixes from every member while the clients are connected.")
    var seconds = 8

    func validate() throws {
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw ValidationError("--binary \(binary) is not an executable; build it with swift build -c release --product whereabouts-sub.")
        }
        guard clients >= 1, circles >= 1, members >= 1, seconds >= 1 else {
            throw ValidationError("--clients, --circles, --members and --seconds must each be at least 1.")
        }
        guard memoryClients >= 0 else { throw ValidationError("--memory-clients must be 0 or more.") }
    }
}

@main
struct DashboardBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "DashboardBenchmark",
        abstract: "Measures the dashboard's WebSocket fan-out of the real whereabouts-sub binary.",
        discussion: """
            Starts its own mosquitto and the given whereabouts-sub, then connects --clients \
            WebSocket clients at once while every member reports once a second for --seconds. \
            Reports the first view's time (p50, p99, max), how many clients end with every \
            circle's latest view, and the server's resident memory before, at its peak and after \
            the clients left; then the same memory figures for --memory-clients connections. The \
            baseline, measured in the same run, is the first view of one client connecting alone \
            (median of 5). The run takes about a minute more than --seconds: resident memory is \
            read for 40 s after the clients leave. Build both in release first: \
            swift build -c release --product whereabouts-sub --product DashboardBenchmark
            """)

    @OptionGroup var options: Options

    @MainActor
    func run() async throws {
        try await measure(options)
    }
}

func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1_000_000) }
func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}
func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
}

/// Publishes a fix for every member; `tst` is the same for all, so a view holds the round's
/// fixes exactly when every member's `tst` is at least it.
func publishRound(_ client: MQTTClient, options: Options, tst: Int, round: Int) async throws {
    for c in 0..<options.circles {
        for m in 0..<options.members {
            let payload = """
            {"_type":"location","tid":"m\(m)","tst":\(tst),"lat":\(52 + Double(c) * 0.01 + Double(round) * 1e-4),"lon":\(-8.6 + Double(m) * 1e-3),"acc":5,"t":"t"}
            """
            try await client.publish(to: "owntracks/user\(c)-\(m)/phone", payload: Data(payload.utf8), qos: .atMostOnce, retain: false)
        }
    }
}

/// Raises the open-file limit to its maximum: thousands of sockets on both sides.
func raiseFileLimit() {
    var limit = rlimit()
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    limit.rlim_cur = limit.rlim_max
    setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
}

/// Runs the whole measurement with `options` and prints the results.
func measure(_ options: Options) async throws {
    raiseFileLimit()
    let logger = {
        var logger = Logger(label: "DashboardBenchmark")
        logger.logLevel = .critical
        return logger
    }()
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dashboard-bench-\(getpid())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }

    var yaml = "circles:\n"
    for c in 0..<options.circles {
        yaml += "  - id: circle-\(c)\n    name: Circle \(c)\n    members:\n"
        for m in 0..<options.members { yaml += "      - user: user\(c)-\(m)\n        device: phone\n" }
    }
    let circlesPath = directory.appendingPathComponent("circles.yaml").path
    try yaml.write(toFile: circlesPath, atomically: true, encoding: .utf8)

    let broker = try await Broker.start()
    let subscriber = try await Subscriber(binary: options.binary, brokerPort: broker.port, circles: circlesPath, directory: directory)
    let publisher = MQTTClient(configuration: broker.clientConfiguration(clientID: "bench-publisher"), logger: logger)
    try await publisher.connect()
    let t0 = Int(Date().timeIntervalSince1970) - 3600
    try await publishRound(publisher, options: options, tst: t0, round: 0)
    try await Task.sleep(for: .seconds(2))  // the subscriber's first views are due after 1 s
    let circleIDs = (0..<options.circles).map { "circle-\($0)" }
    print("whereabouts-sub: \(options.binary); \(options.circles) circles of \(options.members) members; broker mosquitto on 127.0.0.1:\(broker.port)")

    // Baseline: one client alone, five times.
    var alone: [Double] = []
    for i in 0..<5 {
        let record = ClientRecord(path: "/api/circles/\(circleIDs[i % circleIDs.count])/ws", circles: [circleIDs[i % circleIDs.count]])
        let stop = Gate()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await Clients.run(port: subscriber.httpPort, record: record, stop: stop, logger: logger) }
            while record.snapshot.firstView == nil, record.snapshot.error == nil { try await Task.sleep(for: .milliseconds(1)) }
            stop.open()
            try await group.waitForAll()
        }
        if let first = record.snapshot.firstView { alone.append(milliseconds(first)) }
    }
    let baseline = alone.sorted()[alone.count / 2]
    let memoryStart = subscriber.residentBytes

    // Many clients at once while every member reports once a second.
    let records = (0..<options.clients).map { i -> ClientRecord in
        if i % 10 == 9 { return ClientRecord(path: "/ws", circles: circleIDs) }
        let circle = circleIDs[i % circleIDs.count]
        return ClientRecord(path: "/api/circles/\(circle)/ws", circles: [circle])
    }
    let stop = Gate()
    var peak = memoryStart
    var converged = 0
    var convergence: Duration = .zero
    let finalTst = t0 + options.seconds + 100  // later than every round, still in the past (a future fix is rejected)
    try await withThrowingTaskGroup(of: Void.self) { group in
        for record in records {
            group.addTask { await Clients.run(port: subscriber.httpPort, record: record, stop: stop, logger: logger) }
        }
        for second in 1...options.seconds {
            try await publishRound(publisher, options: options, tst: t0 + second, round: second)
            try await Task.sleep(for: .seconds(1))
            peak = max(peak, subscriber.residentBytes)
        }
        try await publishRound(publisher, options: options, tst: finalTst, round: options.seconds + 1)
        let start = ContinuousClock.now
        while ContinuousClock.now - start < .seconds(15) {
            converged = records.filter { $0.hasLatest(tst: finalTst) }.count
            if converged == records.count { break }
            try await Task.sleep(for: .milliseconds(20))
            peak = max(peak, subscriber.residentBytes)
        }
        convergence = ContinuousClock.now - start
        stop.open()
        try await group.waitForAll()
    }
    let firsts = records.compactMap { $0.snapshot.firstView }.map(milliseconds).sorted()
    let upgrades = records.compactMap { $0.snapshot.upgraded }.map(milliseconds).sorted()
    let failures = records.compactMap { $0.snapshot.error }
    let views = records.map { $0.snapshot.views }.reduce(0, +)
    let memoryAfter = try await settledResidentBytes(subscriber)

    print("")
    print("\(options.clients) clients connecting at once (\(options.clients - options.clients / 10) on /api/circles/<id>/ws, \(options.clients / 10) on /ws), fixes from every member each second for \(options.seconds) s:")
    print(String(format: "  first view: p50 %.1f ms, p99 %.1f ms, max %.1f ms (%d of %d clients got one; %d failed)",
                 percentile(firsts, 0.5), percentile(firsts, 0.99), firsts.last ?? .nan, firsts.count, records.count, failures.count))
    print(String(format: "  WebSocket upgrade done: p50 %.1f ms, p99 %.1f ms (the rest of the first view's time is the server's register and push)",
                 percentile(upgrades, 0.5), percentile(upgrades, 0.99)))
    print(String(format: "  baseline, one client alone: %.1f ms (median of 5); p99 / baseline = %.1f", baseline, percentile(firsts, 0.99) / baseline))
    print("  views received: \(views); clients holding every circle's latest view: \(converged) of \(records.count), \(String(format: "%.0f", milliseconds(convergence))) ms after the last fixes")
    print("  resident memory: start \(megabytes(memoryStart)), peak \(megabytes(peak)), after the clients left \(megabytes(memoryAfter)) (\(String(format: "%+.1f", Double(memoryAfter - memoryStart) / 1_000_000)) MB)")
    if let failure = failures.first { print("  first failure: \(failure)") }

    // Memory: many more connections, held briefly, then closed.
    if options.memoryClients > 0 {
        let before = subscriber.residentBytes
        let many = (0..<options.memoryClients).map { i in ClientRecord(path: "/api/circles/\(circleIDs[i % circleIDs.count])/ws", circles: [circleIDs[i % circleIDs.count]]) }
        let manyStop = Gate()
        var manyPeak = before
        try await withThrowingTaskGroup(of: Void.self) { group in
            for record in many {
                group.addTask { await Clients.run(port: subscriber.httpPort, record: record, stop: manyStop, logger: logger) }
            }
            let start = ContinuousClock.now
            while many.contains(where: { $0.snapshot.firstView == nil && $0.snapshot.error == nil }), ContinuousClock.now - start < .seconds(60) {
                try await Task.sleep(for: .milliseconds(50))
                manyPeak = max(manyPeak, subscriber.residentBytes)
            }
            manyPeak = max(manyPeak, subscriber.residentBytes)
            manyStop.open()
            try await group.waitForAll()
        }
        let after = try await settledResidentBytes(subscriber)
        let served = many.filter { $0.snapshot.firstView != nil }.count
        print("")
        print("\(options.memoryClients) connections (\(served) got their first view), then all closed:")
        print("  resident memory: before \(megabytes(before)), peak \(megabytes(manyPeak)), after \(megabytes(after)) (\(String(format: "%+.1f", Double(after - memoryStart) / 1_000_000)) MB against the start of the run)")
    }

    await publisher.disconnect()
    await subscriber.stop()
    await broker.stop()
}

/// Resident memory once the subscriber has let go of the departed clients: the lowest reading
/// over 40 s. It gives freed memory back a second after clients leave, and again 32 s later, once
/// the departed connections' WebSocket ping timers (30 s) have ended and freed their tasks.
func settledResidentBytes(_ subscriber: Subscriber) async throws -> Int {
    var lowest = Int.max
    for _ in 0..<80 {
        try await Task.sleep(for: .milliseconds(500))
        lowest = min(lowest, subscriber.residentBytes)
    }
    return lowest
}

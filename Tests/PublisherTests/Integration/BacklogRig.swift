import Foundation
import Logging
import Outbox
import WhereaboutsCore
import WhereaboutsTestSupport

/// What the backlog suites set up before starting the real whereabouts-pub: an outbox holding a
/// backlog of location reports, and a track that adds nothing to it.
enum BacklogRig {
    /// Appends `count` location reports on `topic` to a new outbox at `path`, with `tst` from
    /// `firstTST` up, one second apart.
    static func writeBacklog(at path: String, topic: String, count: Int, firstTST: Int) async throws {
        let outbox = try Outbox(path: path, logger: Logger(label: "test"))
        for i in 0..<count {
            let tst = firstTST + i
            let payload = #"{"_type":"location","acc":5,"lat":52.1,"lon":-8.6,"m":2,"t":"t","tid":"tr","tst":\#(tst)}"#
            _ = try await outbox.append(topic: topic, payload: Data(payload.utf8), tst: tst,
                                        createdAt: Date(timeIntervalSince1970: Double(tst)))
        }
    }

    /// A one-point GPX track in `folder`, dated 2000, older than any backlog: the replay resumes
    /// after the outbox's newest report, so it adds nothing, and a publisher that has drained its
    /// outbox exits.
    static func staleTrack(in folder: URL) throws -> URL {
        let track = folder.appendingPathComponent("one.gpx")
        try """
            <?xml version="1.0"?><gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
            <trkpt lat="52.0" lon="-8.0"><time>2000-01-01T00:00:00Z</time></trkpt></trkseg></trk></gpx>
            """.write(to: track, atomically: true, encoding: .utf8)
        return track
    }

    /// A track of `points` fixes one second apart, moving east, from `firstTST` (after any backlog
    /// written here): replayed at 10× with a report every second of it, it keeps the publisher
    /// publishing for `points / 10` seconds, so a broker frozen at any moment of that time holds a
    /// publish of it, however far the backlog's drain had gone.
    static func movingTrack(in folder: URL, points: Int, firstTST: Int) throws -> URL {
        let track = folder.appendingPathComponent("moving.gpx")
        let format = ISO8601DateFormatter()
        var gpx = #"<?xml version="1.0"?><gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>"#
        for i in 0..<points {
            let time = format.string(from: Date(timeIntervalSince1970: Double(firstTST + i)))
            gpx += #"<trkpt lat="52.0" lon="\#(-8.0 + Double(i) * 0.0001)"><time>\#(time)</time></trkpt>"#
        }
        try (gpx + "</trkseg></trk></gpx>").write(to: track, atomically: true, encoding: .utf8)
        return track
    }
}

/// The real whereabouts-pub started on a backlog of `count` reports, with a recorder on the broker.
struct BacklogRun {
    let directory: URL
    let outboxPath: String
    let recorder: Recorder
    let publisher: PublisherProcess
    let topic: String
    let count: Int
    let firstTST = 1_700_000_000

    /// What the publisher replays beside the backlog.
    enum Track {
        /// One fix older than the backlog: it adds nothing, and the publisher exits once drained.
        case stale
        /// ``BacklogRig/movingTrack(in:points:firstTST:)`` at 10×, a report per second of it: the
        /// publisher keeps publishing until the track ends or it is stopped.
        case moving(points: Int)
    }

    /// Writes the backlog for `user`'s `tracker`, starts the recorder and then the publisher with
    /// the common flags, `track` and `arguments` (a window, timeouts). `recorderKeepAlive` is the
    /// recorder's MQTT keepalive (``Recorder/init(broker:clientID:keepAlive:)``).
    init(
        broker: Broker, user: String, count: Int, track: Track = .stale, arguments: [String],
        recorderKeepAlive: Duration = .seconds(10)
    ) async throws {
        directory = try TestPaths.makeTemporaryDirectory(prefix: "pub-backlog")
        outboxPath = directory.appendingPathComponent("o.sqlite").path
        topic = "owntracks/\(user)/tracker"
        self.count = count
        try await BacklogRig.writeBacklog(at: outboxPath, topic: topic, count: count, firstTST: firstTST)
        let replay: [String]
        switch track {
        case .stale:
            replay = ["--source", "gpx:\(try BacklogRig.staleTrack(in: directory).path)", "--replay-speed", "max"]
        case .moving(let points):
            let file = try BacklogRig.movingTrack(in: directory, points: points, firstTST: firstTST + count + 100)
            replay = ["--source", "gpx:\(file.path)", "--replay-speed", "10x", "--policy", "interval", "--interval", "1"]
        }
        recorder = try await Recorder(broker: broker, keepAlive: recorderKeepAlive)
        publisher = try PublisherProcess(arguments: replay + [
            "--user", user, "--device", "tracker",
            "--broker", "mqtt://\(broker.host):\(broker.port)", "--outbox", outboxPath,
            "--power-supply-path", directory.path,
        ] + arguments, logFile: directory.appendingPathComponent("pub.log"))
    }

    /// Waits until the recorder has seen every report of the backlog at least once.
    func waitForEveryReport(timeout: Duration = .seconds(30)) async throws {
        let count = count
        try await recorder.waitUntil("every backlog report", timeout: timeout) { messages in
            Set(messages.compactMap { try? JSONDecoder().decode(LocationMessage.self, from: $0.payload).tst }).count >= count
        }
    }

    /// Every `tst` of the backlog.
    var everyTST: Set<Int> { Set(firstTST..<(firstTST + count)) }

    /// The reports left in the outbox.
    func outboxDepth() throws -> Int { try Outbox(path: outboxPath, logger: Logger(label: "test")).depth }
}

import Foundation
import Logging
import WhereaboutsCore
@testable import Subscriber

/// Small builders shared by the pure-logic tests.
enum Build {
    static let t0 = 1_700_000_000
    static let alice = MemberID(user: "alice", device: "phone")
    static let bob = MemberID(user: "bob", device: "phone")
    static let carol = MemberID(user: "carol", device: "car")
    static let dave = MemberID(user: "dave", device: "handheld")

    static func date(_ seconds: Int) -> Date { Date(timeIntervalSince1970: Double(seconds)) }
    static func date(_ seconds: Double) -> Date { Date(timeIntervalSince1970: seconds) }
    static let quietLogger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    static func fix(_ tst: Int, lat: Double = 52.0, lon: Double = -8.6, ve: Double? = nil, vn: Double? = nil,
                    ms: Int? = nil, createdAt: Int? = nil) -> InboundMessage {
        .location(LocationMessage(tid: "al", tst: tst, lat: lat, lon: lon, acc: 5, createdAt: createdAt, ve: ve, vn: vn, ms: ms))
    }

    static func exampleFile() throws -> CirclesFile {
        try CirclesFile.load(path: Fixture.exampleCircles)
    }

    static func store(staleTimeout: Double = 300, viewInterval: Double = 1, shard: Shard = .all) throws -> CircleViewStore {
        CircleViewStore(
            circles: try exampleFile(), shard: shard, settings: ViewSettings(staleTimeout: staleTimeout),
            viewInterval: viewInterval, logger: quietLogger, now: date(t0 - 10))
    }
}

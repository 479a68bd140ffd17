import Subscriber
import Foundation
import WhereaboutsCore

/// The harnesses of the subscriber: payloads from members' devices and the circles file.
enum SubscriberHarnesses {
    private static let decoder = MessageDecoder()
    // A fixed clock, so that an input decodes the same way on every run.
    private static let now = Date(timeIntervalSince1970: 1_750_000_000)

    static func message(_ input: [UInt8]) {
        let first: InboundMessage?
        do { first = try decoder.decode(input, now: now) } catch { first = nil }
        // The same bytes as a non-contiguous collection take the decoder's other path.
        let second: InboundMessage?
        do { second = try decoder.decode(input.lazy.map { $0 }, now: now) } catch { second = nil }
        require(first == second, "the two payload paths decode differently")
        guard case let .location(location, _) = first else { return }
        require(location.lat.isFinite && abs(location.lat) <= 90, "latitude out of range")
        require(location.lon.isFinite && abs(location.lon) <= 180, "longitude out of range")
        require(location.tst >= MessageDecoder.earliestTimestamp, "tst before the earliest accepted")
    }

    static func circles(_ input: [UInt8]) {
        guard let file = try? CirclesFile.parse(yaml: String(decoding: input, as: UTF8.self)) else { return }
        require(Set(file.circles.map(\.id)).count == file.circles.count, "duplicate circle ids accepted")
        _ = file.memberIDs
    }
}

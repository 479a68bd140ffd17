import Subscriber

/// A location the Recorder encoder (``RecorderEncoder``) can write: a row SQLite is stepping
/// (``HistoryLocationRows``, for `/api/0/locations`) or a ``HistoryLocation`` already read
/// (for `/api/0/last` and `/ws/last`). The encoder is generic over it, so each is written
/// without converting one into the other.
protocol RecorderPoint: ~Copyable {
    /// Epoch seconds.
    var tst: Int { get }
    /// Latitude.
    var lat: Double { get }
    /// Longitude.
    var lon: Double { get }
    /// An integer field; `nil` when the device did not send it.
    func int(_ column: HistoryLocationRows.IntColumn) -> Int?
    /// Whether a text field is there (`t` may be missing; a missing `tid` is written as `""`).
    func hasText(_ column: HistoryLocationRows.TextColumn) -> Bool
    /// Calls `body` with the UTF-8 of a text field (empty when missing).
    func withText<Result>(_ column: HistoryLocationRows.TextColumn, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result
    /// Calls `body` with the UTF-8 of the location's user and device (for answers that hold
    /// many members).
    func withMember<Result>(_ body: (_ user: UnsafeRawBufferPointer, _ device: UnsafeRawBufferPointer) throws -> Result) rethrows -> Result
}

extension HistoryLocationRows: RecorderPoint {}

extension HistoryLocation: RecorderPoint {
    var tst: Int { fix.tst }
    var lat: Double { fix.lat }
    var lon: Double { fix.lon }

    func int(_ column: HistoryLocationRows.IntColumn) -> Int? {
        switch column {
        case .acc: fix.acc
        case .alt: fix.alt
        case .vac: fix.vac
        case .vel: fix.vel
        case .cog: fix.cog
        case .batt: fix.batt
        case .bs: fix.bs
        case .m: fix.m
        case .createdAt: fix.createdAt
        }
    }

    func hasText(_ column: HistoryLocationRows.TextColumn) -> Bool {
        switch column {
        case .tid: true
        case .t: fix.t != nil
        }
    }

    func withText<Result>(_ column: HistoryLocationRows.TextColumn, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        var text = switch column {
        case .tid: fix.tid
        case .t: fix.t ?? ""
        }
        return try text.withUTF8 { try body(UnsafeRawBufferPointer($0)) }
    }

    func withMember<Result>(_ body: (_ user: UnsafeRawBufferPointer, _ device: UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        var (user, device) = (member.user, member.device)
        return try user.withUTF8 { user in try device.withUTF8 { device in try body(UnsafeRawBufferPointer(user), UnsafeRawBufferPointer(device)) } }
    }
}

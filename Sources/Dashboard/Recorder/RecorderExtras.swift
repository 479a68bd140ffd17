import Foundation
import Subscriber

/// The keys the OwnTracks Recorder merges into each `/api/0/last` location besides the stored
/// fix, taken from what the subscriber keeps in memory (``MemberDetails``):
/// - from the member's card (as the Recorder's `append_card_to_object`): `name`, and `face` (the
///   image, base64, as the card carried it);
/// - the regions the device last reported being in: `inregions`;
/// - from the live fix, only when it is the very location answered (same `tst`): `SSID`,
///   `BSSID` and `poi`, which the history does not store.
/// Each key is written with the comma before it, ready to go at the end of a location object;
/// `fields=` limits them like the stored keys.
struct RecorderExtras: Sendable {
    private struct Entry: Sendable {
        /// The card's and the regions' keys.
        var always: [UInt8]
        /// The live fix's `tst` and keys.
        var fixTst: Int?
        var ofFix: [UInt8]
    }

    private let entries: [MemberID: Entry]

    /// No extra keys.
    static let none = RecorderExtras(entries: [:])

    private init(entries: [MemberID: Entry]) {
        self.entries = entries
    }

    /// The extra keys of each member in `details`, limited to `fields` when given.
    init(_ details: [MemberID: MemberDetails], fields: [String]?) {
        func wanted(_ key: String) -> Bool { fields?.contains(key) ?? true }
        func pair(_ key: String, _ value: String) -> [UInt8] {
            Array(",\"\(key)\":".utf8) + RecorderBytes.jsonQuoted(value)
        }
        var entries: [MemberID: Entry] = [:]
        for (member, detail) in details {
            var always: [UInt8] = []
            if wanted("face"), let face = detail.face { always += pair("face", Data(face.data).base64EncodedString()) }
            if wanted("inregions"), !detail.inregions.isEmpty {
                always += Array(",\"inregions\":[".utf8)
                for (index, region) in detail.inregions.enumerated() {
                    if index > 0 { always.append(UInt8(ascii: ",")) }
                    always += RecorderBytes.jsonQuoted(region)
                }
                always.append(UInt8(ascii: "]"))
            }
            if wanted("name"), let name = detail.name { always += pair("name", name) }
            var ofFix: [UInt8] = []
            if let fix = detail.fix {
                if wanted("BSSID"), let bssid = fix.bssid { ofFix += pair("BSSID", bssid) }
                if wanted("SSID"), let ssid = fix.ssid { ofFix += pair("SSID", ssid) }
                if wanted("poi"), let poi = fix.poi { ofFix += pair("poi", poi) }
            }
            guard !always.isEmpty || !ofFix.isEmpty else { continue }
            entries[member] = Entry(always: always, fixTst: detail.fix?.tst, ofFix: ofFix)
        }
        self.entries = entries
    }

    /// Whether there is nothing to add to any location.
    var isEmpty: Bool { entries.isEmpty }

    /// The extra keys of `member`'s location dated `tst`; `nil` when there are none.
    func bytes(for member: MemberID, tst: Int) -> [UInt8]? {
        guard let entry = entries[member] else { return nil }
        let bytes = entry.fixTst == tst ? entry.always + entry.ofFix : entry.always
        return bytes.isEmpty ? nil : bytes
    }
}

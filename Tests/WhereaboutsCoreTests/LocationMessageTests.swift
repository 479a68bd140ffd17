import Foundation
import Testing
import WhereaboutsCore

struct LocationMessageTests {
    @Test("A location message round-trips through JSON with OwnTracks' field names")
    func roundTrip() throws {
        let message = LocationMessage(tid: "ab", tst: 1_700_000_000, lat: 52.1, lon: -8.2, acc: 5, t: "t", createdAt: 1_700_000_100, ve: 1.5)
        let data = try JSONEncoder().encode(message)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["_type"] as? String == "location")
        #expect(object["created_at"] as? Int == 1_700_000_100)
        #expect(try JSONDecoder().decode(LocationMessage.self, from: data) == message)
    }
}

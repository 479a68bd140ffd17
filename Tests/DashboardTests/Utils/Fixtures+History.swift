@testable import Dashboard
import Foundation
import Logging
@testable import Subscriber
import WhereaboutsCore

extension Fixtures {
    /// Writes `<directory>/users.yaml` giving each of `users` the password `password` (hashed at
    /// cost 4, quick for tests) and returns the dashboard's login over it, with the file.
    static func logins(
        _ users: [String], password: String, in directory: URL, logger: Logger
    ) async throws -> (authenticator: Authenticator, file: URL) {
        let file = directory.appendingPathComponent("users.yaml")
        let hash = await PasswordHashing.hash(password, cost: 4)
        var usersFile = UsersFile()
        for user in users { usersFile = try usersFile.settingPassword(hash, for: user) }
        try usersFile.write(to: file.path)
        return (try Authenticator(configuration: LoginConfiguration(usersPath: file.path), logger: logger), file)
    }

    /// A history in `<directory>/history.sqlite` holding `rows`.
    static func history(_ rows: [HistoryRow], in directory: URL, logger: Logger) async throws -> HistoryStore {
        let history = try HistoryStore(path: directory.appendingPathComponent("history.sqlite").path, logger: logger)
        _ = try await history.write(rows)
        return history
    }

    /// `count` locations of Alice heading north from (52.66, -8.62), `step` degrees of latitude
    /// apart, one every `interval` seconds from `start`, each received at its own time.
    static func aliceHeadingNorth(count: Int, from start: Int, every interval: Int, step: Double) -> [HistoryRow] {
        (0..<count).map { i in
            HistoryRow.location(alice.id, LocationMessage(tid: "al", tst: start + i * interval, lat: 52.66 + Double(i) * step, lon: -8.62, acc: 8),
                                receivedAt: Double(start + i * interval))
        }
    }
}

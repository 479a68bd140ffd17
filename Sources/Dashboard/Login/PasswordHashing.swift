import Dispatch
import HummingbirdBcrypt

/// bcrypt through hummingbird-auth's `HummingbirdBcrypt`, on Dispatch's threads: a hash at the
/// default cost takes a quarter of a second of CPU, which must not block the cooperative pool
/// (two threads on a two-core machine) that serves every other request.
package enum PasswordHashing {
    /// The cost `whereabouts-sub passwd` uses unless told otherwise: 2^12 rounds, about 0.25 s
    /// per check on one core, the common recommendation for interactive logins.
    package static let defaultCost = 12
    /// The costs bcrypt accepts.
    package static let costs = 4...31

    /// A new salted hash of `password` at `cost`.
    package static func hash(_ password: String, cost: Int = defaultCost) async -> String {
        precondition(costs.contains(cost), "bcrypt cost must be in \(costs)")
        return await offPool { Bcrypt.hash(password, cost: UInt8(cost)) }
    }

    /// ``hash(_:cost:)`` on the calling thread (at start, before serving).
    static func hashNow(_ password: String, cost: Int) -> String {
        Bcrypt.hash(password, cost: UInt8(cost))
    }

    /// Whether `password` matches `hash`.
    package static func verify(_ password: String, hash: String) async -> Bool {
        await offPool { Bcrypt.verify(password, hash: hash) }
    }

    /// Whether `text` looks like a bcrypt hash (`$2a$`, `$2b$` or `$2y$`, a two-digit cost, 53
    /// characters of salt and hash).
    static func isHash(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 60, text.hasPrefix("$2a$") || text.hasPrefix("$2b$") || text.hasPrefix("$2y$"),
              let cost = Int(String(decoding: bytes[4..<6], as: UTF8.self)), costs.contains(cost), bytes[6] == UInt8(ascii: "$")
        else { return false }
        return true
    }

    /// The cost a bcrypt hash was made with, or `nil` when `hash` is not one.
    static func cost(of hash: String) -> Int? {
        guard isHash(hash) else { return nil }
        return Int(String(decoding: Array(hash.utf8)[4..<6], as: UTF8.self))
    }

    private static func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: work()) }
        }
    }
}

import Foundation
import Logging
import Synchronization
import Glibc

/// Why the metrics server could not start.
enum MetricsServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The address and port could not be bound (in use, not permitted, not an address).
    case cannotBind(address: String, port: Int, reason: String)

    /// A sentence naming the address and port.
    var description: String {
        switch self {
        case let .cannotBind(address, port, reason):
            "Cannot serve metrics on \(address):\(port): \(reason). Choose another --metrics-port."
        }
    }
}

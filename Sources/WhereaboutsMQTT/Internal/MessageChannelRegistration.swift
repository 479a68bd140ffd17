#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
internal import WhereaboutsCore

/// One `messages` sequence's registration with the hub. When the last copy of the sequence and
/// its iterators are gone, the channel is unregistered, so nothing buffers for nobody.
final class MessageChannelRegistration: Sendable {
    let channel: MessageChannel
    private let hub: ClientHub
    private let id: UInt64

    init(channel: MessageChannel, hub: ClientHub, id: UInt64) {
        self.channel = channel
        self.hub = hub
        self.id = id
    }

    deinit { hub.removeMessageChannel(id) }
}

import Logging
import ServiceLifecycle
import WhereaboutsMQTT

/// Feeds the receipts that arrive on the device's receipt topic into the ``ReceiptBook`` and wakes
/// the drainer, until graceful shutdown (docs/receipts.md).
struct ReceiptListener: Service {
    private let messages: MQTTMessages
    private let book: ReceiptBook
    private let doorbell: Doorbell

    /// Creates the listener over the main connection's messages (opened before connecting).
    init(messages: MQTTMessages, book: ReceiptBook, doorbell: Doorbell) {
        self.messages = messages
        self.book = book
        self.doorbell = doorbell
    }

    /// Applies receipts until graceful shutdown.
    func run() async throws {
        for await message in messages.cancelOnGracefulShutdown() where book.receive(message) {
            doorbell.ring()
        }
    }
}

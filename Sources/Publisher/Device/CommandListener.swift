import Logging
import ServiceLifecycle
import WhereaboutsMQTT

/// Applies commands that arrive on `<base>/cmd` until graceful shutdown.
///
/// Retained commands are ignored (logged at warning level and counted as
/// `whereabouts_pub_commands_total{result="retained"}`): a retained `reportLocation` would
/// otherwise fire on every restart.
struct CommandListener: Service {
    private let messages: MQTTMessages
    private let topic: String
    private let handler: CommandHandler
    private let metrics: PublisherMetrics
    private let logger: Logger

    /// Creates the listener over the main connection's messages.
    init(messages: MQTTMessages, topic: String, handler: CommandHandler, metrics: PublisherMetrics, logger: Logger) {
        self.messages = messages
        self.topic = topic
        self.handler = handler
        self.metrics = metrics
        self.logger = logger
    }

    /// Handles commands until graceful shutdown.
    func run() async throws {
        for await message in messages.cancelOnGracefulShutdown() where message.topic == topic {
            if message.retained {
                metrics.retainedCommandIgnored()
                logger.warning("Ignored a retained command; commands must not be retained.")
                continue
            }
            await handler.handle(payload: message.payload)
        }
    }
}

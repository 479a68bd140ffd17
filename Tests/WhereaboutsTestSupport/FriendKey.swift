/// The friend an OwnTracks app files a message under: Android the topic, a card's without
/// `/info` (owntracks/android `MessageBase.contactKey`); iOS the first N levels, N the levels of
/// its own publish topic (owntracks/ios `OwnTracking.m`, `processMessage`).
public enum FriendKey {
    /// The app that reads the message.
    public enum App: Sendable {
        /// The Android app.
        case android
        /// The iOS app, which publishes its own reports to `publishTopic`.
        case iOS(publishTopic: String)
    }

    /// The key under which `app` files a message that arrived on `topic`.
    public static func key(_ topic: String, app: App) -> String {
        switch app {
        case .android:
            return topic.hasSuffix("/info") ? String(topic.dropLast(5)) : topic
        case .iOS(let publishTopic):
            let count = publishTopic.split(separator: "/", omittingEmptySubsequences: false).count
            return topic.split(separator: "/", omittingEmptySubsequences: false).prefix(count).joined(separator: "/")
        }
    }
}

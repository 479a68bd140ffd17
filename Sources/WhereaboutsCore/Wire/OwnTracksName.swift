#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The one rule for user and device names, used by every component that puts a name into a topic,
/// an account or an access rule: the publisher's topic, the circles file, the subscriber's routing,
/// and the generated mosquitto ACL, dynamic-security roles and NATS accounts.
///
/// The rule: a name is one MQTT topic level, taken **exactly as typed**. No component changes its
/// case or its spelling on its own. MQTT brokers compare topic levels and user names byte for
/// byte, and the OwnTracks apps put the MQTT user name into the topic as typed: iOS builds
/// `owntracks/<user_preference>/<deviceid_preference>` (owntracks/ios `Settings.m`,
/// `theGeneralTopicInMOC:`), Android `owntracks/%u/%d` with the user name as entered
/// (owntracks/android `Preferences.pubTopicBase`). So `Eve`'s phone reports on
/// `owntracks/Eve/iPhone`, and a mosquitto ACL `pattern readwrite owntracks/%u/#` or the generated
/// `user Eve` block grants exactly that.
///
/// A name must be in Unicode normalisation form C (what the phones' keyboards type): Swift compares
/// strings by canonical equivalence, brokers by bytes, and only for NFC names do the two agree.
public enum OwnTracksName {
    /// The longest name, in UTF-8 bytes.
    public static let maximumLength = 64

    /// Why `name` cannot be a user or device name, or `nil` when it can.
    public static func problem(with name: String) -> String? {
        if name.isEmpty { return "it is empty" }
        if name.utf8.count > maximumLength { return "it is longer than \(maximumLength) bytes" }
        for scalar in name.unicodeScalars {
            if "/+#".unicodeScalars.contains(scalar) { return "'\(scalar)' is a topic separator or wildcard" }
            if scalar.properties.isWhitespace { return "it contains a space" }
            if scalar.properties.generalCategory == .control { return "it contains a control character" }
        }
        // The standard library's NFC (`_nfcCodeUnits`, the form its own string comparison
        // uses): FoundationEssentials has no `precomposedStringWithCanonicalMapping`.
        if name._nfcCodeUnits.elementsEqual(name.utf8) == false {
            return "it is not in Unicode normalisation form C (retype it: brokers compare names byte for byte)"
        }
        return nil
    }

    /// Whether two names are the same name: byte for byte, as a broker compares them.
    public static func same(_ a: String, _ b: String) -> Bool {
        a.utf8.elementsEqual(b.utf8)
    }

    /// The topic a member publishes on: `<prefix>/<user>/<device>`, the names as they are.
    public static func topic(prefix: String = "owntracks", user: String, device: String) -> String {
        "\(prefix)/\(user)/\(device)"
    }

    /// The broker account of a device's main connection under mosquitto's dynamic security
    /// plugin (`whereabouts-sub dynsec`), which is also the only client id it may use:
    /// `whereabouts-<user>-<device>`. Its presence connection uses the same with `-presence`.
    public static func deviceAccount(user: String, device: String) -> String {
        "whereabouts-\(user)-\(device)"
    }

    /// Why a client logged in as `username` could not publish on `<prefix>/<user>/<device>` under
    /// the generated access control, or `nil` when it can.
    ///
    /// The generated mosquitto ACL file and NATS accounts grant `<prefix>/<user>/#` to the account
    /// named exactly `<user>` (as mosquitto's `%u` pattern does); dynamic security grants it to
    /// ``deviceAccount(user:device:)``. Any other account's reports would be acknowledged by the
    /// broker and then dropped (MQTT 3.1.1 has no way to say so), so the publisher refuses to
    /// start with such a pair.
    public static func accountProblem(username: String, user: String, device: String) -> String? {
        if same(username, user) || same(username, deviceAccount(user: user, device: device)) { return nil }
        let why = accountDiffersOnlyInCase(username: username, user: user, device: device)
            ? "they differ only in upper and lower case, and brokers compare names exactly"
            : "they are different names"
        return "the broker account '\(username)' cannot publish as the user '\(user)': \(why). The generated access control lets only the account '\(user)' (ACL file, NATS) or '\(deviceAccount(user: user, device: device))' (dynamic security) publish on owntracks/\(user)/#, and the broker would drop every other report without a word. Use the same name, exactly, in both places"
    }

    /// Whether `username` is the account for `user`/`device` but for upper and lower case: a
    /// mistake under any access control, since brokers compare names exactly.
    public static func accountDiffersOnlyInCase(username: String, user: String, device: String) -> Bool {
        let account = deviceAccount(user: user, device: device)
        guard !same(username, user), !same(username, account) else { return false }
        return username.lowercased() == user.lowercased() || username.lowercased() == account.lowercased()
    }
}

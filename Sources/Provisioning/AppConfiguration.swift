import Foundation

/// The configuration an OwnTracks app imports (`_type: configuration`), with the keys both apps
/// read, as a `.otrc` file or an `owntracks:///config?inline=<base64>` link.
///
/// Keys and values, checked against the apps' import code:
/// - owntracks/android `preferences/Preferences.kt` (`importConfiguration` sets every
///   `@Preference` property whose name is a key: `host`, `port`, `tls`, `username`, `password`,
///   `clientId`, `deviceId`, `tid` (at most two letters or digits, `StringMaxTwoAlphaNumericChars`),
///   `pubTopicBase`, `subTopic`, `sub`, `pubQos`, `subQos`, `pubRetain`, `cleanSession`,
///   `mqttProtocolLevel`, `encryptionKey`, `mode`; unknown keys such as `auth` are skipped);
/// - owntracks/ios `Settings.m` (`fromDictionary:inMOC:` refuses a configuration without a numeric
///   `mode`, and maps `deviceId`, `tid`, `clientId`, `subTopic`, `pubTopicBase`, `host`, `port`,
///   `tls`, `auth`, `username`, `password`, `encryptionKey`, `subQos`, `pubQos`, `pubRetain`,
///   `cleanSession`, `mqttProtocolLevel`, `sub` to its settings; iOS logs in with the user name
///   and password only when `auth` is true);
/// - the OwnTracks booklet, "Remote configuration" (`features/remoteconfig.md`): the `.otrc`
///   file and the `owntracks:///config?inline=` link, which both apps open.
///
/// `pubTopicBase` is written out (`owntracks/<user>/<device>`), never with the apps' `%u`
/// placeholder: the broker account's name is not the OwnTracks user name.
package struct AppConfiguration: Codable, Sendable, Hashable {
    /// Always `configuration`.
    package var type = "configuration"
    /// 0: MQTT (Android `ConnectionMode.MQTT`, iOS `CONNECTION_MODE_MQTT`).
    package var mode = 0
    /// The broker's host name as the phone reaches it.
    package var host: String
    /// The broker's port.
    package var port: Int
    /// Whether the connection uses TLS.
    package var tls: Bool
    /// iOS: log in with `username` and `password`.
    var auth = true
    /// The broker account.
    package var username: String
    /// The broker account's password.
    package var password: String
    /// The MQTT client id (the dynamic security plugin binds the account to it).
    var clientId: String
    /// The OwnTracks device name: the third level of `owntracks/<user>/<device>`.
    var deviceId: String
    /// The tracker id: one or two letters or digits.
    package var tid: String
    /// The topic the app publishes to: `owntracks/<user>/<device>`.
    var pubTopicBase: String
    /// The filters the app subscribes to, separated by spaces: the member's circles' trees.
    package var subTopic: String
    /// Whether the app subscribes at all (to see friends).
    package var sub: Bool
    /// QoS of the app's publications: 1.
    var pubQos = 1
    /// QoS of the app's subscriptions: 1.
    var subQos = 1
    /// Locations are published retained, as the apps do by default.
    var pubRetain = true
    /// A persistent session, so friends' news queued while the phone is away arrive.
    package var cleanSession = false
    /// MQTT 3.1.1 (4): what mosquitto and NATS both speak.
    var mqttProtocolLevel = 4
    /// The OwnTracks encryption secret, when the member's device encrypts.
    package var encryptionKey: String?

    enum CodingKeys: String, CodingKey {
        case type = "_type"
        case mode, host, port, tls, auth, username, password, clientId, deviceId, tid, pubTopicBase, subTopic, sub
        case pubQos, subQos, pubRetain, cleanSession, mqttProtocolLevel, encryptionKey
    }

    /// Creates a configuration; the protocol settings keep the values documented on each.
    package init(
        host: String, port: Int, tls: Bool, username: String, password: String, clientId: String, deviceId: String, tid: String,
        pubTopicBase: String, subTopic: String, encryptionKey: String?
    ) {
        self.host = host
        self.port = port
        self.tls = tls
        self.username = username
        self.password = password
        self.clientId = clientId
        self.deviceId = deviceId
        self.tid = tid
        self.pubTopicBase = pubTopicBase
        self.subTopic = subTopic
        self.sub = !subTopic.isEmpty
        self.encryptionKey = encryptionKey
    }

    /// The `.otrc` file's bytes: JSON, keys sorted, one per line.
    package var otrc: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return ((try? encoder.encode(self)) ?? Data()) + Data("\n".utf8)
    }

    /// The `owntracks:///config?inline=<base64>` link: standard base64 of the JSON, percent-encoded
    /// (`+`, `/`, `=`). Android reads the query with Apache's `URIBuilder` (owntracks/android
    /// `LoadViewModel.extractPreferencesFromUri`), which decodes percent escapes and would read a
    /// bare `+` as a space; iOS takes the percent-decoded `NSURLComponents` query item and
    /// `initWithBase64EncodedString:options:0` (owntracks/ios `OwnTracksAppDelegate.m`,
    /// `application:openURL:options:`), which wants the standard alphabet.
    package var link: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let base64 = ((try? encoder.encode(self)) ?? Data()).base64EncodedString()
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return "owntracks:///config?inline=" + (base64.addingPercentEncoding(withAllowedCharacters: allowed) ?? base64)
    }

    /// Reads a configuration back from an `owntracks:///config?inline=` link.
    package init(link: String) throws(ProvisioningError) {
        guard let components = URLComponents(string: link), components.scheme == "owntracks", components.path == "/config",
              let inline = components.queryItems?.first(where: { $0.name == "inline" })?.value,
              let json = Data(base64Encoded: inline) else {
            throw ProvisioningError("'\(link.prefix(40))...' is not an owntracks:///config?inline=<base64> link.")
        }
        do {
            self = try JSONDecoder().decode(Self.self, from: json)
        } catch {
            throw ProvisioningError("The link's configuration is not an OwnTracks configuration: \(error).")
        }
    }
}

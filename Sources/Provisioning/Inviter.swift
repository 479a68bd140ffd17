import Foundation
import Subscriber
import WhereaboutsCore
import SystemSupport

/// Everything an invite made: the app's configuration, and what had to be created for it.
package struct Invitation: Sendable, Hashable {
    /// The member's device.
    package var member: MemberID
    /// The ids of the circles the member is in, of those the invite added them to, and of those
    /// whose tree the app subscribes to.
    package var circles: [String], joined: [String], trees: [String]
    /// The configuration the app imports.
    package var configuration: AppConfiguration
    /// Whether the device's encryption secret was generated now (else read, or none).
    package var secretGenerated: Bool
}

/// Makes and revokes invites: a member device's broker account, its encryption secret and the
/// OwnTracks app configuration that uses them, from the circles file.
package struct Inviter: Sendable {
    /// Where the phone reaches the broker, and the topics.
    package struct Settings: Sendable, Hashable {
        /// The circles file.
        package var circlesPath: String
        /// The broker's host name as the phone reaches it.
        package var host: String
        /// Its port.
        package var port: Int
        /// Whether the phone connects with TLS.
        package var tls: Bool
        /// The topic roots.
        package var prefixes: TopicPrefixes
        /// Creates settings.
        package init(circlesPath: String, host: String, port: Int, tls: Bool, prefixes: TopicPrefixes = TopicPrefixes()) {
            self.circlesPath = circlesPath
            self.host = host
            self.port = port
            self.tls = tls
            self.prefixes = prefixes
        }
    }

    private let settings: Settings
    private let accounts: AccountSource

    /// An inviter for `settings` whose accounts live in `accounts`.
    package init(settings: Settings, accounts: AccountSource) {
        self.settings = settings
        self.accounts = accounts
    }

    /// Creates (or reuses) the broker account and secret of `user`/`device`, and returns the app
    /// configuration. The member is first added to each circle of `joining` that does not list
    /// them yet (with the `secretFile` they name elsewhere, if any); they must then be a member of
    /// at least one circle. `trackerID` defaults to the one the circles' trees show for the user.
    /// The plugin's admin connection, when the accounts are there, is made before anything is
    /// changed: a refused admin leaves the circles file as it was.
    package func invite(user: String, device: String, joining: [String] = [], trackerID: String? = nil) async throws -> Invitation {
        try await accounts.withStore { store in
            try await invite(user: user, device: device, joining: joining, trackerID: trackerID, accounts: store)
        }
    }

    private func invite(user: String, device: String, joining: [String], trackerID: String?, accounts: AccountStore) async throws -> Invitation {
        let id = MemberID(user: user, device: device)
        var text = try readCirclesText()
        var parsed: CirclesFile
        do { parsed = try CirclesFile.parse(yaml: text) } catch { throw ProvisioningError("The circles file \(settings.circlesPath) is not valid: \(error)") }
        let listed = parsed.circles.flatMap(\.members).first { $0.id == id }
        // iOS keys a friend by as many topic levels as its own publish topic has (owntracks/ios
        // OwnTracking.m processMessage); a tree's friend topics have three
        // (`<root>/<user>/<device>`), so a deeper publish topic would split each friend's
        // location from its card (docs/owntracks.md, "Several circles, several trees").
        let publishTopic = "\(settings.prefixes.topicPrefix)/\(user)/\(device)"
        let sharesTrees = parsed.circles.contains { circle in
            (joining.contains(circle.id) || circle.members.contains { $0.id == id })
                && circle.ownTracksTree
        }
        if sharesTrees, publishTopic.split(separator: "/", omittingEmptySubsequences: false).count != 3 {
            throw ProvisioningError(
                "The publish topic \(publishTopic) has more than three levels, so the iOS app would show each friend of the circles' trees twice (location and card apart). Use a one-level topic prefix (--topic-prefix owntracks).")
        }
        var joined: [String] = []
        for circle in joining where !(parsed.circles.first { $0.id == circle }?.members.contains { $0.id == id } ?? false) {
            text = try CirclesFileText.adding(
                Member(user: user, device: device, secretFile: listed?.secretFile), toCircle: circle, in: text)
            joined.append(circle)
        }
        if !joined.isEmpty {
            do {
                try AtomicFile.write(Data(text.utf8), to: settings.circlesPath, mode: Self.mode(of: settings.circlesPath))
                parsed = try CirclesFile.parse(yaml: text)
            } catch {
                throw ProvisioningError("Cannot add \(user)/\(device) to \(settings.circlesPath): \(error)")
            }
        }
        let circles = parsed.circles.filter { $0.members.contains { $0.id == id } }
        guard let member = circles.first?.members.first(where: { $0.id == id }) else {
            throw ProvisioningError(
                "\(user)/\(device) is in no circle of \(settings.circlesPath). Name a circle to add them to (--circle), or add them to a circle's members (user: \(user), device: \(device)).")
        }
        let tid = trackerID ?? OwnTracksFriend.defaultTrackerID(user)
        guard (1...2).contains(tid.count), tid.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            throw ProvisioningError("The tracker id '\(tid)' must be one or two letters or digits (the apps refuse others); give one with --tid.")
        }
        var secret: (secret: String, generated: Bool)?
        if let secretFile = member.secretFile {
            secret = try MemberSecret.readOrCreate(at: MemberSecret.path(secretFile, circlesPath: settings.circlesPath))
        }
        let trees = circles.filter(\.ownTracksTree).map { ($0.id, $0.ownTracksTreeRoot(viewPrefix: settings.prefixes.viewPrefix) + "/#") }
        // Accounts come from the parsed file: they need no secret, and another member's secret
        // file may not exist yet (it is made by that member's invite).
        let credentials = try await accounts.provision(member, in: parsed, prefixes: settings.prefixes)
        let configuration = AppConfiguration(
            host: settings.host, port: settings.port, tls: settings.tls, username: credentials.username, password: credentials.password,
            clientId: credentials.clientID, deviceId: device, tid: tid,
            pubTopicBase: publishTopic,
            // One space between filters and none around: iOS splits at each whitespace character
            // and keeps empty pieces (OwnTracksAppDelegate.m connectForcingCleanSession:), Android
            // splits at each space (MqttConnectionConfiguration.kt); an empty piece would be an
            // empty topic filter, which the broker answers by closing the connection.
            subTopic: trees.map(\.1).joined(separator: " "), encryptionKey: secret?.secret)
        return Invitation(
            member: id, circles: circles.map(\.id), joined: joined, trees: trees.map(\.0), configuration: configuration,
            secretGenerated: secret?.generated ?? false)
    }

    /// Takes `user`/`device` out of every circle of the circles file (so the subscriber drops
    /// them from the views and clears them from the trees), deletes their broker account and
    /// their encryption secret file. Returns one line per thing done.
    package func revoke(user: String, device: String) async throws -> [String] {
        try await accounts.withStore { store in try await revoke(user: user, device: device, accounts: store) }
    }

    private func revoke(user: String, device: String, accounts: AccountStore) async throws -> [String] {
        let id = MemberID(user: user, device: device)
        let text = try readCirclesText()
        let before: CirclesFile
        do { before = try CirclesFile.parse(yaml: text) } catch { throw ProvisioningError("The circles file \(settings.circlesPath) is not valid: \(error)") }
        let listed = before.circles.flatMap(\.members).filter { $0.id == id }
        guard let member = listed.first else {
            throw ProvisioningError("\(user)/\(device) is in no circle of \(settings.circlesPath); there is nothing to revoke.")
        }
        let edited = try CirclesFileText.removing(id, from: text)
        do {
            try AtomicFile.write(Data(edited.utf8), to: settings.circlesPath, mode: Self.mode(of: settings.circlesPath))
        } catch {
            throw ProvisioningError("Cannot write \(settings.circlesPath): \(error.reason).")
        }
        var done = ["Removed \(user)/\(device) from the circles \(before.circles.filter { $0.members.contains { $0.id == id } }.map(\.id).joined(separator: ", ")) in \(settings.circlesPath)."]
        let after: CirclesFile
        do { after = try CirclesFile.parse(yaml: edited) } catch { throw ProvisioningError("The edited circles file does not parse: \(error)") }
        done += try await accounts.revoke(member, leaving: after, prefixes: settings.prefixes)
        let stillUsed = Set(after.circles.flatMap(\.members).compactMap(\.secretFile).map { MemberSecret.path($0, circlesPath: settings.circlesPath) })
        for path in Set(listed.compactMap(\.secretFile).map { MemberSecret.path($0, circlesPath: settings.circlesPath) }) where !stillUsed.contains(path) {
            if (try? FileManager.default.removeItem(atPath: path)) != nil { done.append("Deleted the secret file \(path).") }
        }
        return done
    }

    /// The ids of the circles of the circles file that list `user`/`device` now (none for a
    /// member not listed yet): what an invite or a revoke would hand out or take away, so that a
    /// caller acting for one circle (the dashboard's invite dialog) can refuse a member who is
    /// also in circles it does not administer.
    package func circles(listing user: String, device: String) throws(ProvisioningError) -> [String] {
        let id = MemberID(user: user, device: device)
        let parsed: CirclesFile
        do { parsed = try CirclesFile.parse(yaml: try readCirclesText()) } catch let error as ProvisioningError { throw error } catch {
            throw ProvisioningError("The circles file \(settings.circlesPath) is not valid: \(error)")
        }
        return parsed.circles.filter { $0.members.contains { $0.id == id } }.map(\.id)
    }

    private func readCirclesText() throws(ProvisioningError) -> String {
        do { return try String(contentsOfFile: settings.circlesPath, encoding: .utf8) } catch {
            throw ProvisioningError("The circles file \(settings.circlesPath) cannot be read: \(error.localizedDescription)")
        }
    }

    private static func mode(of path: String) -> mode_t {
        let permissions = (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.uint16Value
        return mode_t(permissions ?? 0o644)
    }
}

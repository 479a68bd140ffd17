import ArgumentParser
import CommandLineDialect
import CommandLineSupport
import Foundation
import Logging
import Provisioning
import Subscriber
import WhereaboutsCore
import WhereaboutsMQTT
import SystemSupport

/// `whereabouts-sub invite`: one scan sets up a member's OwnTracks app. Makes (or reuses) the
/// device's broker account and encryption secret, and writes the app's configuration as a
/// `.otrc` file, an `owntracks:///config?inline=` link and a QR code; `--revoke` undoes it.
struct InviteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "invite",
        abstract: "Set up a member's OwnTracks app in one scan: broker account, secret, and the app's configuration as a QR code.",
        discussion: """
            The member (--user, --device) must be listed in at least one circle of --circles, or be \
            added with --circle (appended to that circle's members). invite \
            makes or reuses their broker account where --accounts says accounts live: dynsec (the dynamic \
            security plugin, changed live over the admin connection of --broker/--username, as \
            `whereabouts-sub dynsec`), mosquitto (--acl-file and --mosquitto-password-file, as \
            `whereabouts-sub acl`, then SIGHUP to --reload-pid-file), or nats (--nats-accounts, as \
            `whereabouts-sub acl --format nats`). Passwords are read from or generated into --password-dir. \
            A member with a secretFile in the circles file gets that secret (generated when the file does \
            not exist). It then writes <user>-<device>.otrc and <user>-<device>.png (the QR code) to \
            --output-dir, mode 0600 (they hold the password), and prints the owntracks:///config?inline= \
            link and the QR code. The app subscribes to the OwnTracks trees of the member's circles with \
            owntracks: true. --revoke removes the member from every circle of --circles (the subscriber \
            then clears them from the trees), deletes their account and their secret file. Give invite \
            the same --subscriber-user and --operator-user as dynsec or acl. See docs/owntracks.md, "Add a phone".
            """
    )

    @Option(help: ArgumentHelp("The circles file (YAML) that lists the member.", valueName: "file"))
    var circles: String

    @Option(help: ArgumentHelp("The member's OwnTracks user name (the <user> of owntracks/<user>/<device>).", valueName: "name"))
    var user: String

    @Option(help: ArgumentHelp("The member's device name (the <device> of owntracks/<user>/<device>).", valueName: "name"))
    var device: String

    @Option(help: ArgumentHelp(
        "A circle to add the member to when it does not list them yet (appended to its members in the circles file); repeat for several.",
        valueName: "id"))
    var circle: [String] = []

    @Option(help: ArgumentHelp("The tracker id the app shows (one or two letters or digits). Default: the one the circles' trees show, the user name's last two characters.", valueName: "id"))
    var tid: String?

    @Flag(help: "Revoke the invite: remove the member from the circles file, delete their broker account and secret.")
    var revoke = false

    @Option(help: "Where the members' broker accounts live: dynsec, mosquitto (acl_file and password_file) or nats (a NATS accounts file).")
    var accounts: InviteAccountKind = .dynsec

    @OptionGroup var brokerOptions: BrokerOptions

    @Option(help: ArgumentHelp(
        "The broker as the phone reaches it: mqtt://HOST[:PORT] or mqtts://HOST[:PORT] (TLS). Default: the first URL of --broker.",
        valueName: "url"))
    var appBroker: String?

    @Option(help: ArgumentHelp("The folder of the broker accounts' passwords, one file per account, named after it; missing ones are generated there.", valueName: "dir"))
    var passwordDir: String

    @Option(help: ArgumentHelp("Where to write <user>-<device>.otrc and <user>-<device>.png.", valueName: "dir"))
    var outputDir: String = "."

    @Option(help: "The subscriber's account; repeat for several shard instances (as given to dynsec or acl).")
    var subscriberUser: [String] = ["whereabouts-sub"]

    @Option(help: "An account that may read every topic (as given to dynsec or acl); repeat for several.")
    var operatorUser: [String] = []

    @Option(help: ArgumentHelp("With --accounts mosquitto: the acl_file to rewrite.", valueName: "file"))
    var aclFile: String?

    @Option(help: ArgumentHelp("With --accounts mosquitto: the password_file to update with mosquitto_passwd.", valueName: "file"))
    var mosquittoPasswordFile: String?

    @Option(help: ArgumentHelp("With --accounts nats: the NATS accounts file to rewrite.", valueName: "file"))
    var natsAccounts: String?

    @Option(help: ArgumentHelp(
        "With --accounts mosquitto or nats: a file holding the process id of the broker (each NATS node: repeat) to send SIGHUP once the files are written.",
        valueName: "file"))
    var reloadPidFile: [String] = []

    @OptionGroup var prefixes: TopicPrefixOptions

    @Option(help: "The log level: \(Logger.Level.valueList(conjunction: "or")).")
    var logLevel: Logger.Level = .warning

    func validate() throws {
        try brokerOptions.checkTopicLevel(user, what: "--user")
        try brokerOptions.checkTopicLevel(device, what: "--device")
        if revoke, !circle.isEmpty { throw ValidationError("--circle adds a member; --revoke removes them from every circle. Give one or the other.") }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: passwordDir, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("--password-dir \(passwordDir) is not a folder; create it (mode 0700).")
        }
        switch accounts {
        case .dynsec:
            guard brokerOptions.username != nil else {
                throw ValidationError("--accounts dynsec needs --username: the dynamic security plugin's admin account.")
            }
        case .mosquitto:
            guard aclFile != nil, mosquittoPasswordFile != nil else {
                throw ValidationError("--accounts mosquitto needs --acl-file and --mosquitto-password-file: the files mosquitto's acl_file and password_file name.")
            }
        case .nats:
            guard natsAccounts != nil else { throw ValidationError("--accounts nats needs --nats-accounts: the accounts file the NATS nodes include.") }
        }
        if accounts == .dynsec, !reloadPidFile.isEmpty { throw ValidationError("--reload-pid-file goes with --accounts mosquitto or nats; dynsec changes the broker live.") }
        if accounts == .mosquitto, reloadPidFile.count > 1 { throw ValidationError("--accounts mosquitto reloads one broker: give --reload-pid-file once.") }
        _ = try appAddress()
    }

    private func appAddress() throws -> BrokerAddress {
        guard let appBroker else { return try brokerOptions.address() }
        do { return try BrokerAddress(parsing: appBroker) } catch { throw ValidationError("--app-broker: \(error.description)") }
    }

    func run() async throws {
        let logger = LoggingOptions.bootstrap(label: "whereabouts-sub", level: logLevel)
        let address = try appAddress()
        var plan = InviteAccounts(
            kind: accounts, passwordDirectory: passwordDir,
            roles: AccountStore.Roles(subscriberUsers: subscriberUser, operatorUsers: operatorUser), prefixes: prefixes,
            aclFile: aclFile, mosquittoPasswordFile: mosquittoPasswordFile, natsAccounts: natsAccounts, reloadPidFiles: reloadPidFile)
        if accounts == .dynsec {
            // The plugin's admin: this command's own --username, a clean session.
            let name = brokerOptions.username ?? ""
            var configuration = try brokerOptions.mqttConfiguration(defaultClientID: name)
            configuration.cleanSession = true
            plan.admin = (configuration, name)
        }
        let source = try plan.source(logger: logger)
        let settings = Inviter.Settings(
            circlesPath: circles, host: address.host, port: address.port, tls: address.usesTLS,
            prefixes: TopicPrefixes(topicPrefix: prefixes.topicPrefix, viewPrefix: prefixes.viewPrefix))
        do {
            if revoke {
                for line in try await Inviter(settings: settings, accounts: source).revoke(user: user, device: device) { print(line) }
                // The invite's files hold the password that no longer works: remove them too.
                let base = URL(fileURLWithPath: outputDir).appendingPathComponent("\(user)-\(device)")
                for file in [base.appendingPathExtension("otrc").path, base.appendingPathExtension("png").path]
                where (try? FileManager.default.removeItem(atPath: file)) != nil {
                    print("Deleted \(file).")
                }
            } else {
                try write(try await Inviter(settings: settings, accounts: source).invite(user: user, device: device, joining: circle, trackerID: tid))
            }
        } catch {
            throw ValidationError("\(error)")
        }
    }

    /// Writes the `.otrc` and the PNG, then prints what was done, the link and the QR code.
    private func write(_ invitation: Invitation) throws {
        let configuration = invitation.configuration
        let code = try QRCode(configuration.link)
        let base = URL(fileURLWithPath: outputDir).appendingPathComponent("\(user)-\(device)")
        let otrc = base.appendingPathExtension("otrc").path
        let png = base.appendingPathExtension("png").path
        do {
            try AtomicFile.write(configuration.otrc, to: otrc, mode: 0o600)
            try AtomicFile.write(try code.png(), to: png, mode: 0o600)
        } catch let error as AtomicFileError {
            throw ValidationError("Cannot write the invite to \(outputDir): \(error.reason).")
        }
        if !invitation.joined.isEmpty { print("Added \(user)/\(device) to \(invitation.joined.joined(separator: ", ")) in \(circles).") }
        print("Invite for \(user)/\(device): broker account '\(configuration.username)', circles \(invitation.circles.joined(separator: ", ")).")
        if invitation.trees.isEmpty {
            print("None of these circles publishes an OwnTracks tree (owntracks: true): the app will show no friends.")
        } else {
            print("The app subscribes to the trees of \(invitation.trees.joined(separator: ", ")): \(configuration.subTopic)")
        }
        if configuration.encryptionKey != nil {
            print(invitation.secretGenerated ? "Generated the device's encryption secret." : "The app encrypts with the device's secret.")
        }
        print("Wrote \(otrc) and \(png) (they hold the password: hand them over privately).")
        print("Scan with the phone's camera, or open on the phone:")
        print(configuration.link)
        print(code.terminalText(), terminator: "")
    }
}

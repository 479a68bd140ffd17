import ArgumentParser
import Subscriber
import CommandLineDialect
import CommandLineSupport
import Foundation
import Provisioning
import Logging
import WhereaboutsMQTT

/// `whereabouts-sub dynsec`: makes mosquitto's dynamic security plugin hold one account per MQTT
/// connection, bound to its client id, with the circles' access rules; live, and again on every
/// change of the circles file with `--watch`.
struct DynsecCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dynsec",
        abstract: "Bind every client id to its own broker account, with the circles' access rules, through mosquitto's dynamic security plugin.",
        discussion: """
            Each MQTT connection gets its own account whose user name is its client id, and the plugin \
            refuses that account under any other id: whereabouts-sub (the subscriber), \
            whereabouts-<user>-<device> and whereabouts-<user>-<device>-presence (a publisher's two \
            connections), and each --operator-user. So no account can use another's client id to kick it \
            off or resume its session. Rules are those of `whereabouts-sub acl`. Changes are sent live \
            over $CONTROL/dynamic-security/v1 with the plugin's admin account (--username), so the broker \
            is never restarted; accounts and roles whereabouts-sub did not create are never changed. A \
            new account's password is read from --password-dir/<account> (the presence account shares \
            its device's file), or generated and written there. See broker/ACCESS-CONTROL.md.
            """
    )

    @Option(help: ArgumentHelp("The circles file (YAML) to generate the accounts from.", valueName: "file"))
    var circles: String

    @OptionGroup var brokerOptions: BrokerOptions

    @Option(help: "The subscriber's account (and client id); repeat for several shard instances.")
    var subscriberUser: [String] = ["whereabouts-sub"]

    @Option(help: "An account (and client id) that may read every topic, for operators; repeat for several.")
    var operatorUser: [String] = []

    @Option(help: ArgumentHelp("The folder of the new accounts' password files, one per account, named after it.", valueName: "dir"))
    var passwordDir: String?

    @Flag(help: "Keep running, and apply the circles file again whenever it changes or on SIGHUP.")
    var watch = false

    @Flag(help: "Print the commands that would be sent (passwords hidden) and change nothing.")
    var dryRun = false

    @OptionGroup var prefixes: TopicPrefixOptions

    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard brokerOptions.username != nil else {
            throw ValidationError("--username is needed: the dynamic security plugin's admin account (see mosquitto_ctrl dynsec init).")
        }
        guard let passwordDir else {
            if dryRun { return }
            throw ValidationError("--password-dir is needed: the folder where new accounts' passwords are read from or written to.")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: passwordDir, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("--password-dir \(passwordDir) is not a folder; create it (mode 0700).")
        }
        if watch, dryRun { throw ValidationError("--watch and --dry-run do not go together.") }
    }

    func run() async throws {
        let logger = logging.bootstrap(label: "whereabouts-sub")
        let admin = brokerOptions.username ?? ""
        let file: CirclesFile
        do { file = try CirclesFile.load(path: circles) } catch {
            throw ValidationError("The circles file \(circles) is not valid: \(error)")
        }
        var configuration = SubscriberApp.clientConfiguration(try brokerOptions.mqttConfiguration(defaultClientID: admin))
        configuration.cleanSession = true
        let client = MQTTClient(configuration: configuration, logger: logger)
        try await client.connect()
        let sync = DynamicSecuritySync(
            control: DynamicSecurityControl(client: client),
            settings: .init(
                subscriberUsers: subscriberUser, operatorUsers: operatorUser, reservedUsers: [admin],
                topicPrefix: prefixes.topicPrefix, viewPrefix: prefixes.viewPrefix, passwordDirectory: passwordDir ?? ""),
            logger: logger)
        do {
            if watch {
                await sync.watch(path: circles)
            } else {
                let outcome = try await sync.apply(file, dryRun: dryRun)
                if dryRun { for command in outcome.commands { print(command) } }
            }
        } catch {
            await client.disconnect()
            throw error
        }
        await client.disconnect()
    }
}

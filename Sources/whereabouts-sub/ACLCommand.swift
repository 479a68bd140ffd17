import ArgumentParser
import Foundation
import Provisioning
import Subscriber
import WhereaboutsCore
import SystemSupport

#if canImport(Glibc)
import Glibc
#endif

/// `whereabouts-sub acl`: writes the broker's access rules for a circles file: a mosquitto ACL
/// file, or a NATS accounts file.
struct ACLCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "acl",
        abstract: "Write the broker access rules (mosquitto ACL file or NATS accounts) that enforce the circles' privacy.",
        discussion: """
            Each member user may read and write only owntracks/<user>/#, and read only the views and \
            events of the circles they belong to (and the OwnTracks trees of those with owntracks: true). \
            The subscriber's account reads every member's topics and writes the views. MQTT user names \
            are the OwnTracks user names of the circles file.

            --format mosquitto (the default) writes an ACL file: point mosquitto's acl_file at it and \
            reload mosquitto (SIGHUP) after each change; see broker/ACCESS-CONTROL.md. \
            --format nats writes the accounts file of a NATS server or cluster (users.conf beside \
            broker/nats/local-node.conf), with the same rules as NATS subject permissions and each \
            account's password, read from --password-dir (one file per account, named after it) or \
            generated there; --reload-pid-file then makes each node reload it; see docs/cluster.md.
            """
    )

    /// The file formats `acl` writes.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case mosquitto, nats
    }

    @Option(help: ArgumentHelp("The circles file (YAML) to generate the rules from.", valueName: "file"))
    var circles: String

    @Option(help: "mosquitto (an acl_file) or nats (a NATS accounts file with passwords).")
    var format: Format = .mosquitto

    @Option(help: "The MQTT user name the subscriber logs in with.")
    var subscriberUser: String = "whereabouts-sub"

    @Option(help: "An MQTT user name that may read every topic, for operators; repeat for several.")
    var operatorUser: [String] = []

    @Option(help: ArgumentHelp("Where to write the rules. Without it they go to standard output.", valueName: "file"))
    var output: String?

    @Option(help: ArgumentHelp(
        "With --format nats: the folder of the accounts' passwords, one file per account named after it; missing ones are generated there (mode 0600).",
        valueName: "dir"))
    var passwordDir: String?

    @Option(help: ArgumentHelp(
        "With --format nats: a file holding the process id of a nats-server to send SIGHUP (reload) once the file is written; repeat for every node.",
        valueName: "file"))
    var reloadPidFile: [String] = []

    @OptionGroup var prefixes: TopicPrefixOptions

    func validate() throws {
        guard format == .nats else {
            if passwordDir != nil || !reloadPidFile.isEmpty {
                throw ValidationError("--password-dir and --reload-pid-file go with --format nats; mosquitto keeps passwords in its own password file (mosquitto_passwd).")
            }
            return
        }
        guard let passwordDir else {
            throw ValidationError("--format nats needs --password-dir: NATS keeps each account's password in the accounts file.")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: passwordDir, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("--password-dir \(passwordDir) is not a folder; create it (mode 0700).")
        }
        if !reloadPidFile.isEmpty, output == nil {
            throw ValidationError("--reload-pid-file needs --output: the nodes reload the file they were started with.")
        }
    }

    func run() throws {
        let file: CirclesFile
        do {
            file = try CirclesFile.load(path: circles)
        } catch {
            throw ValidationError("The circles file \(circles) is not valid: \(error)")
        }
        let text: String
        do {
            switch format {
            case .mosquitto:
                text = try AccessControlList(
                    circles: file.circles, subscriberUser: subscriberUser, operatorUsers: operatorUser,
                    topicPrefix: prefixes.topicPrefix, viewPrefix: prefixes.viewPrefix
                ).render()
            case .nats:
                text = try NATSAccounts(
                    circles: file.circles, subscriberUsers: [subscriberUser], operatorUsers: operatorUser,
                    topicPrefix: prefixes.topicPrefix, viewPrefix: prefixes.viewPrefix
                ).render(passwordDirectory: passwordDir ?? "")
            }
        } catch {
            throw ValidationError(error.description)
        }
        guard let output else {
            print(text, terminator: "")
            return
        }
        try write(text, to: output, secret: format == .nats)
        for pidFile in reloadPidFile { try reload(pidFile: pidFile) }
    }

    /// Writes atomically (``AtomicFile``), mode 0600 when it holds passwords.
    private func write(_ text: String, to path: String, secret: Bool) throws {
        do {
            try AtomicFile.write(Data(text.utf8), to: path, mode: secret ? 0o600 : 0o644)
        } catch {
            throw ValidationError("Cannot write \(path): \(error.reason). Check that the folder of --output exists and is writable.")
        }
    }

    private func reload(pidFile: String) throws {
        guard let text = try? String(contentsOfFile: pidFile, encoding: .utf8),
              let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 0 else {
            throw ValidationError("--reload-pid-file \(pidFile) does not hold a process id.")
        }
        guard kill(pid, SIGHUP) == 0 else {
            throw ValidationError("Could not signal the nats-server \(pid) of \(pidFile) to reload: \(String(cString: strerror(errno))). Is it running, and are you allowed to signal it?")
        }
        FileHandle.standardError.write(Data("Asked nats-server \(pid) (\(pidFile)) to reload.\n".utf8))
    }
}

import ArgumentParser
import Subscriber
import Foundation

/// `whereabouts-sub acl`: writes the mosquitto ACL for a circles file.
struct ACLCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "acl",
        abstract: "Write the mosquitto ACL file that enforces the circles' privacy.",
        discussion: """
            Each member user may read and write only owntracks/<user>/#, and read only the views and \
            events of the circles they belong to. The subscriber's account reads every member's topics \
            and writes the views. MQTT user names are the OwnTracks user names of the circles file. \
            Point mosquitto's acl_file at the output and reload mosquitto (SIGHUP) after each change. \
            See broker/ACCESS-CONTROL.md.
            """
    )

    @Option(help: ArgumentHelp("The circles file (YAML) to generate the ACL from.", valueName: "file"))
    var circles: String

    @Option(help: "The MQTT user name the subscriber logs in with.")
    var subscriberUser: String = "whereabouts-sub"

    @Option(help: "An MQTT user name that may read every topic, for operators; repeat for several.")
    var operatorUser: [String] = []

    @Option(help: ArgumentHelp("Where to write the ACL file. Without it the ACL goes to standard output.", valueName: "file"))
    var output: String?

    @Option(help: "The topic prefix of the circle views.")
    var viewPrefix: String = "whereabouts/circles"

    @Option(help: "The first topic level of the members' OwnTracks topics.")
    var topicPrefix: String = "owntracks"

    func run() throws {
        let file: CirclesFile
        do {
            file = try CirclesFile.load(path: circles)
        } catch {
            throw ValidationError("The circles file \(circles) is not valid: \(error)")
        }
        let acl: String
        do {
            acl = try AccessControlList(
                circles: file.circles, subscriberUser: subscriberUser, operatorUsers: operatorUser,
                topicPrefix: topicPrefix, viewPrefix: viewPrefix
            ).render()
        } catch {
            throw ValidationError(error.description)
        }
        if let output {
            try acl.write(toFile: output, atomically: true, encoding: .utf8)
        } else {
            print(acl, terminator: "")
        }
    }
}

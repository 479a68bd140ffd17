import Foundation

extension Broker {
    /// Writes `mosquitto.conf` (and the password and ACL files) into the broker's directory.
    func writeConfiguration() throws {
        var lines = [
            "# Written by WhereaboutsTestSupport.Broker for one test.",
            "per_listener_settings false",
            "set_tcp_nodelay true",
            "allow_anonymous \(options.allowAnonymous)",
            "log_dest file \(logFile.path)",
            "log_type all",
            "connection_messages true",
            "max_queued_messages \(options.maxQueuedMessages)",
            "listener \(port) \(host)",
        ]
        if getuid() == 0 {
            // Stay root: the default drop to user `mosquitto` could not read this directory.
            lines.append("user root")
        }
        if let tls = options.tls, let tlsPort {
            lines += [
                "listener \(tlsPort) \(host)",
                "cafile \(tls.caCertificate.path)",
                "certfile \(tls.serverCertificate.path)",
                "keyfile \(tls.serverKey.path)",
                "require_certificate \(options.requireClientCertificate)",
            ]
        }
        if options.persistence {
            lines += ["persistence true", "persistence_location \(directory.path)/", "autosave_interval 1"]
        } else {
            lines.append("persistence false")
        }
        if !options.users.isEmpty {
            let file = directory.appendingPathComponent("passwords")
            _ = FileManager.default.createFile(atPath: file.path, contents: Data())
            for (user, password) in options.users.sorted(by: { $0.key < $1.key }) {
                try ToolRun.runChecked("/usr/bin/mosquitto_passwd", ["-b", file.path, user, password])
            }
            lines.append("password_file \(file.path)")
        } else if let passwordFile = options.passwordFile {
            lines.append("password_file \(passwordFile)")
        }
        if let acl = options.acl {
            let file = directory.appendingPathComponent("acl")
            try acl.write(to: file, atomically: true, encoding: .utf8)
            lines.append("acl_file \(file.path)")
        } else if let aclFile = options.aclFile {
            lines.append("acl_file \(aclFile)")
        }
        if !options.extraConfiguration.isEmpty { lines.append(options.extraConfiguration) }
        try (lines.joined(separator: "\n") + "\n").write(to: configurationFile, atomically: true, encoding: .utf8)
    }
}

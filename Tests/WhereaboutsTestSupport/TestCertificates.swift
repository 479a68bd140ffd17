import Foundation

/// A throwaway certificate authority with a server certificate (for `localhost` and 127.0.0.1)
/// and a client certificate, made with the `openssl` command line tool. EC P-256 keys, so
/// making one takes a fraction of a second.
public struct TestCertificates: Sendable {
    /// The CA certificate (PEM): give it to clients as `caFile` and to the broker as `cafile`.
    public var caCertificate: URL
    /// The CA's private key.
    public var caKey: URL
    /// The server certificate, signed by the CA, naming `localhost` and `127.0.0.1`.
    public var serverCertificate: URL
    /// The server certificate's key.
    public var serverKey: URL
    /// A client certificate signed by the CA (common name `client`).
    public var clientCertificate: URL
    /// The client certificate's key.
    public var clientKey: URL

    /// Makes a CA, a server and a client certificate in a new temporary directory (or
    /// `directory`). `serverNames` become the server certificate's DNS subject alternative names.
    /// The five `openssl` runs wait on a thread of their own (``OffPool``), not on the cooperative pool.
    public static func make(in directory: URL? = nil, serverNames: [String] = ["localhost"]) async throws -> TestCertificates {
        try await OffPool.run { try makeBlocking(in: directory, serverNames: serverNames) }
    }

    private static func makeBlocking(in directory: URL?, serverNames: [String]) throws -> TestCertificates {
        let directory = try directory ?? TestPaths.makeTemporaryDirectory(prefix: "whereabouts-certs")
        func path(_ name: String) -> URL { directory.appendingPathComponent(name) }
        let certificates = TestCertificates(
            caCertificate: path("ca.crt"), caKey: path("ca.key"),
            serverCertificate: path("server.crt"), serverKey: path("server.key"),
            clientCertificate: path("client.crt"), clientKey: path("client.key"))
        let openssl = "/usr/bin/openssl"
        try ToolRun.runChecked(openssl, [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", certificates.caKey.path, "-out", certificates.caCertificate.path,
            "-days", "2", "-subj", "/CN=Whereabouts Test CA",
        ])
        let alternativeNames = (serverNames.map { "DNS:\($0)" } + ["IP:127.0.0.1"]).joined(separator: ",")
        try issue(
            openssl, name: "server", subject: "/CN=\(serverNames.first ?? "localhost")",
            extensions: "subjectAltName=\(alternativeNames)\nextendedKeyUsage=serverAuth\n",
            certificates: certificates, key: certificates.serverKey, certificate: certificates.serverCertificate,
            directory: directory)
        try issue(
            openssl, name: "client", subject: "/CN=client", extensions: "extendedKeyUsage=clientAuth\n",
            certificates: certificates, key: certificates.clientKey, certificate: certificates.clientCertificate,
            directory: directory)
        return certificates
    }

    private static func issue(
        _ openssl: String, name: String, subject: String, extensions: String,
        certificates: TestCertificates, key: URL, certificate: URL, directory: URL
    ) throws {
        let request = directory.appendingPathComponent("\(name).csr")
        let extensionsFile = directory.appendingPathComponent("\(name).ext")
        try extensions.write(to: extensionsFile, atomically: true, encoding: .utf8)
        try ToolRun.runChecked(openssl, [
            "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", key.path, "-out", request.path, "-subj", subject,
        ])
        try ToolRun.runChecked(openssl, [
            "x509", "-req", "-in", request.path, "-CA", certificates.caCertificate.path,
            "-CAkey", certificates.caKey.path, "-CAcreateserial", "-out", certificate.path,
            "-days", "2", "-extfile", extensionsFile.path,
        ])
    }
}

import CMosquitto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

extension MosquittoSession {
    /// Creates a libmosquitto handle configured from `configuration` (not yet connected).
    static func makeHandle(_ configuration: MQTTConfiguration) throws(MQTTError) -> OpaquePointer {
        try configuration.validate()
        MosquittoLibrary.initializeOnce()
        let clientID = configuration.clientID.isEmpty ? nil : configuration.clientID
        guard let handle = mosquitto_new(clientID, configuration.cleanSession, nil) else {
            throw .invalidArgument("libmosquitto could not create a client (\(String(cString: strerror(errno))))")
        }
        do {
            try configure(handle, configuration)
            return handle
        } catch {
            mosquitto_destroy(handle)
            throw error
        }
    }

    private static func configure(_ handle: OpaquePointer, _ configuration: MQTTConfiguration) throws(MQTTError) {
        // Publish, subscribe and disconnect come from other threads: make libmosquitto lock.
        try check(mosquitto_threaded_set(handle, true), "enabling thread safety")
        let version = configuration.protocolVersion == .v5 ? MQTT_PROTOCOL_V5 : MQTT_PROTOCOL_V311
        try check(mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, Int32(version)), "setting the protocol version")
        try check(mosquitto_int_option(handle, MOSQ_OPT_TCP_NODELAY, 1), "setting TCP_NODELAY")
        try check(mosquitto_max_inflight_messages_set(handle, UInt32(configuration.maxInflightMessages)), "setting the inflight limit")
        if configuration.protocolVersion == .v5 {
            try check(mosquitto_int_option(handle, MOSQ_OPT_SEND_MAXIMUM, Int32(configuration.maxInflightMessages)), "setting the send maximum")
        }
        if let credentials = configuration.credentials {
            try check(mosquitto_username_pw_set(handle, credentials.username, credentials.password), "setting the user name")
        }
        if let will = configuration.will {
            let rc = will.payload.withUnsafeBytes { buffer in
                mosquitto_will_set(handle, will.topic, Int32(buffer.count), buffer.baseAddress, Int32(will.qos.rawValue), will.retain)
            }
            guard rc == MosquittoCode.success else {
                throw .invalidArgument("the will cannot be used (\(MosquittoCode.text(rc))); check its topic '\(will.topic)'")
            }
        }
        if let tls = configuration.tls { try configureTLS(handle, tls) }
    }

    private static func configureTLS(_ handle: OpaquePointer, _ tls: MQTTConfiguration.TLS) throws(MQTTError) {
        for (name, path) in [("CA file", tls.caFile), ("certificate", tls.certificateFile), ("key", tls.keyFile)] {
            if let path, !FileManager.default.isReadableFile(atPath: path) {
                throw .tlsFailure(detail: "the \(name) '\(path)' cannot be read")
            }
        }
        let rc = mosquitto_tls_set(handle, tls.caFile, tls.caPath, tls.certificateFile, tls.keyFile, nil)
        guard rc == MosquittoCode.success else {
            throw .tlsFailure(detail: "libmosquitto rejected the TLS files (\(MosquittoCode.text(rc)))")
        }
        // cert_reqs: 1 = SSL_VERIFY_PEER, 0 = SSL_VERIFY_NONE.
        try check(mosquitto_tls_opts_set(handle, tls.verifyPeer ? 1 : 0, nil, nil), "setting TLS options")
        try check(mosquitto_tls_insecure_set(handle, !tls.verifyHostname), "setting host name verification")
    }

    private static func check(_ rc: Int32, _ what: String) throws(MQTTError) {
        guard rc == MosquittoCode.success else {
            throw .library(code: rc, detail: "\(what): \(MosquittoCode.text(rc))")
        }
    }
}

/// Process-wide libmosquitto initialisation.
enum MosquittoLibrary {
    private static let initialized: Bool = {
        mosquitto_lib_init()
        // Over TLS, libmosquitto writes through OpenSSL's socket BIO, which uses write() without
        // MSG_NOSIGNAL: a broker that went away would kill the process with SIGPIPE instead of
        // failing the write. Ignore SIGPIPE, unless the program installed its own handler.
        #if os(Linux)
        var current = sigaction()
        if sigaction(SIGPIPE, nil, &current) == 0 && current.__sigaction_handler.sa_handler == nil {
            signal(SIGPIPE, SIG_IGN)
        }
        #endif
        return true
    }()

    /// Calls `mosquitto_lib_init` exactly once per process (Swift runs a static initialiser once,
    /// thread-safely) and ignores SIGPIPE if it has its default action. `mosquitto_lib_cleanup`
    /// is never called: handles may outlive any caller.
    static func initializeOnce() { _ = initialized }
}

import CMosquitto
#if canImport(Glibc)
import Glibc
#endif

// MARK: The session thread's own loop over libmosquitto's socket
//
// Why not `mosquitto_loop`: libmosquitto 2.0.11's `mosquitto_loop(handle, timeout, 1)` (lib/loop.c)
// makes one `pselect` per pass over the socket and an internal socket pair, and for a subscriber
// reads one packet per pass; every packet it queues (a PUBACK, a publish) writes a byte into
// that socket pair (lib/packet_mosq.c `packet__queue`), which a later pass reads back, one byte
// per pass. Measured with `strace -c -f` while our client drained 50,000 queued QoS 1 messages
// (2026-11-28): 8.4 system calls per message with `mosquitto_loop`, 6.0 with this loop, and the
// client's CPU per message went from 7.4 to 3.9 µs (docs/mqtt.md, "The connection's loop"). The loop here
// uses the external-loop functions libmosquitto documents (`mosquitto_socket`,
// `mosquitto_loop_read`, `mosquitto_loop_write`, `mosquitto_loop_misc`,
// `mosquitto_want_write`): it `poll`s only when the last read found the socket empty, reads
// what the socket holds (up to `readBudget` packets) before it writes, and never reads the socket
// pair (see `SessionWakeup` for how other threads wake it instead).
//
// What libmosquitto still does per packet: the fixed header, each remaining-length byte and the
// body are separate `read`s (lib/packet_mosq.c `packet__read`), each queued packet is its own
// `write`, and `packet__queue` still writes a byte into the socket pair. Nobody reads that pair
// now, so after 278 bytes (its 208 KiB send buffer, counted per 1-byte buffer) those writes fail
// at once with EAGAIN, which libmosquitto ignores; the pair holds that much kernel memory per
// client. Only `mosquitto_loop` and `mosquitto_loop_forever` read it, and neither is called.

extension MosquittoSession {
    /// How many packets one pass reads at most before it writes (PUBACKs, publishes), checks the
    /// keepalive and hands over what it read (wakes consumers, resumes acknowledged operations).
    static let readBudget = 128

    /// What one pass of the loop did.
    struct Pass {
        /// libmosquitto's result: `MosquittoCode.success`, or why the connection ended.
        var rc: Int32
        /// `errno` right after the call that failed (for the error's text).
        var savedErrno: Int32 = 0
        /// Whether the read stopped at ``readBudget`` rather than at an empty socket: the next
        /// pass reads again before waiting.
        var socketMayHoldMore = false
    }

    /// One pass: waits for the socket (unless `wait` is false: the last pass left packets to
    /// read) at most the milliseconds `willWait` returns, reads what it holds, checks the
    /// keepalive, and writes what is queued. `willWait` and `woke` are the lock sections around
    /// the wait that let other threads know whether to wake it
    /// (``SessionState/sessionThreadWillWait()``).
    func drivePass(wait: Bool, willWait: () -> Int32, woke: () -> Void) -> Pass {
        var socketReady = !wait
        if wait {
            let timeoutMilliseconds = willWait()
            let waited = waitForSocket(timeoutMilliseconds: timeoutMilliseconds)
            woke()
            if waited.rc != MosquittoCode.success { return waited }
            socketReady = waited.socketMayHoldMore
        }
        var pass = Pass(rc: MosquittoCode.success)
        if socketReady {
            // Also on a writable-only socket: during a TLS handshake `mosquitto_loop_read` is what
            // continues it (lib/loop.c), whichever way OpenSSL asked to wait.
            pass = readAvailable()
            if pass.rc != MosquittoCode.success { return pass }
        }
        // The keepalive (it may queue a PINGREQ, written just below), then whatever is queued:
        // `mosquitto_loop_write` writes every queued packet, and makes no system call when none is.
        if let ended = ended(mosquitto_loop_misc(handle)) { return ended }
        if let ended = ended(mosquitto_loop_write(handle, 1)) { return ended }
        return pass
    }

    /// The end of the connection if `rc` (a libmosquitto call's result, `errno` still as it left
    /// it) failed or the call closed the socket, as `mosquitto_loop` would report it.
    private func ended(_ rc: Int32) -> Pass? {
        if rc != MosquittoCode.success { return Pass(rc: rc, savedErrno: errno) }
        // Closed without an error: the broker's DISCONNECT, or ours once written.
        if mosquitto_socket(handle) < 0 { return Pass(rc: MosquittoCode.noConnection, savedErrno: errno) }
        return nil
    }

    /// Waits in `poll` for the socket (readable, or writable while libmosquitto has something to
    /// write) or the session's wake-up, at most `timeoutMilliseconds`. The result's
    /// `socketMayHoldMore` says whether the socket reported anything.
    private func waitForSocket(timeoutMilliseconds: Int32) -> Pass {
        let socket = mosquitto_socket(handle)
        guard socket >= 0 else { return Pass(rc: MosquittoCode.noConnection) }
        var socketEvents = Int16(POLLIN)
        // Unlocked in libmosquitto (lib/mosquitto.c); a packet another thread queues meanwhile
        // wakes this wait through `wakeup` instead (``SessionState/takeWakeRequest()``).
        if mosquitto_want_write(handle) { socketEvents |= Int16(POLLOUT) }
        return withUnsafeTemporaryAllocation(of: pollfd.self, capacity: 2) { descriptors in
            descriptors[0] = pollfd(fd: socket, events: socketEvents, revents: 0)
            descriptors[1] = pollfd(fd: wakeup.descriptor, events: Int16(POLLIN), revents: 0)
            let count = poll(descriptors.baseAddress, 2, timeoutMilliseconds)
            if count < 0 {
                let pollErrno = errno
                // A signal is no failure (as `mosquitto_loop` treats it): the next pass waits again.
                return pollErrno == EINTR ? Pass(rc: MosquittoCode.success) : Pass(rc: MosquittoCode.errno, savedErrno: pollErrno)
            }
            if descriptors[1].revents != 0 { wakeup.reset() }
            // A timeout with a packet queued that was not queued before the wait: whoever queued
            // it did not wake this thread, and it waited the whole timeout (counted for tests).
            if count == 0, socketEvents & Int16(POLLOUT) == 0, mosquitto_want_write(handle) {
                hub.noteWriteAfterTimeout()
            }
            return Pass(rc: MosquittoCode.success, socketMayHoldMore: descriptors[0].revents != 0)
        }
    }

    /// Reads packets until the socket is empty or ``readBudget`` packets were read.
    ///
    /// `mosquitto_loop_read` reads as many packets per call as libmosquitto has QoS > 0 messages
    /// in its queues, at least one (lib/loop.c), and stops early once `errno` is EAGAIN. It says
    /// nothing about why it stopped, and `errno` cannot tell: a PUBACK queued for a message ends
    /// with the socket pair's failing write (EAGAIN) as well. So a call that completed a packet is
    /// recognised by a callback having counted it (`packetsHandled`), and another call follows;
    /// a call that completed none found the socket empty (or a partial packet, or a packet
    /// without a callback such as PINGRESP, after which the `poll` returns at once). Over TLS,
    /// OpenSSL may hold decrypted bytes the socket no longer shows readable; then reading goes on
    /// however the call ended, so a TLS connection never waits in `poll` on data it already has.
    private func readAvailable() -> Pass {
        for _ in 0..<Self.readBudget {
            let handled = packetsHandled
            if let ended = ended(mosquitto_loop_read(handle, 1)) { return ended }
            if packetsHandled == handled && !tlsHoldsDecryptedBytes() { return Pass(rc: MosquittoCode.success) }
        }
        return Pass(rc: MosquittoCode.success, socketMayHoldMore: true)
    }

    /// Whether OpenSSL holds decrypted bytes of this connection not read yet (`SSL_pending`);
    /// false without TLS.
    private func tlsHoldsDecryptedBytes() -> Bool {
        guard configuration.tls != nil, let ssl = mosquitto_ssl_get(handle), let pending = OpenSSL.pending else { return false }
        return pending(ssl) > 0
    }
}

/// OpenSSL's `SSL_pending`, found at run time in the libssl that libmosquitto loaded: our
/// targets do not link OpenSSL themselves (nor need its headers). `nil` only when no libssl is
/// loaded, and then no connection has an `SSL` object to ask about either.
private enum OpenSSL {
    typealias Pending = @convention(c) (UnsafeMutableRawPointer) -> Int32
    static let pending: Pending? = {
        guard let symbol = dlsym(nil, "SSL_pending") else { return nil }
        return unsafeBitCast(symbol, to: Pending.self)
    }()
}

#ifndef WHEREABOUTS_CMOSQUITTO_SHIM_H
#define WHEREABOUTS_CMOSQUITTO_SHIM_H
#include <mosquitto.h>
#include <mqtt_protocol.h>
#include <sys/select.h>

/// Waits up to `microseconds` for `socket` to become readable: 1 when it is, 0 on timeout, -1 on
/// error (errno set). Swift's Glibc module has `poll`, whose timeout is whole milliseconds, but
/// not `ppoll`; the session thread needs sub-millisecond waits (see `wakeLinger`).
/// libmosquitto's own loop uses `select`, so the same FD_SETSIZE limit already applies.
static inline int whereabouts_wait_readable(int socket, long microseconds) {
    if (socket < 0 || socket >= FD_SETSIZE) return -1;
    fd_set readable;
    FD_ZERO(&readable);
    FD_SET(socket, &readable);
    struct timeval timeout = { microseconds / 1000000, microseconds % 1000000 };
    return select(socket + 1, &readable, NULL, NULL, &timeout);
}
#endif

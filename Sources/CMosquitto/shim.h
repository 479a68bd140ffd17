#ifndef WHEREABOUTS_CMOSQUITTO_SHIM_H
#define WHEREABOUTS_CMOSQUITTO_SHIM_H
#include <mosquitto.h>
#include <mqtt_protocol.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/eventfd.h>

/// Turns TCP_NODELAY on (1) or off (0) for `socket`; returns setsockopt's result. Turning it on
/// also sends at once whatever Nagle's algorithm was holding back.
static inline int whereabouts_set_tcp_nodelay(int socket, int on) {
    return setsockopt(socket, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
}
#endif

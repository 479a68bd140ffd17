#ifndef WHEREABOUTS_CMOSQUITTO_BASELINE_H
#define WHEREABOUTS_CMOSQUITTO_BASELINE_H

/* The C baseline for publish benchmarks: the same workload as the Swift client, written the
 * plain libmosquitto way (mosquitto_loop_start's thread, callbacks, a mutex and a condition
 * variable). Reused by the publisher's "drain a backlog" benchmark. */

/* Result of one run. `seconds` covers the first publish to the last acknowledgement. */
typedef struct {
    long acknowledged;  /* publishes acknowledged (QoS 0: written) */
    double seconds;     /* wall-clock time of the run */
    int error;          /* 0, or a libmosquitto error code (see mosquitto_strerror) */
} whereabouts_c_publish_result;

/* Connects to host:port as client_id (MQTT 3.1.1, clean session), publishes `count` messages
 * of `payload_size` bytes to `topic` at `qos`, keeping at most `window` publishes awaiting
 * acknowledgement, with libmosquitto's inflight limit set to `max_inflight`, waits until all are
 * acknowledged, and disconnects. */
whereabouts_c_publish_result whereabouts_c_publish_benchmark(
    const char *host, int port, const char *client_id, const char *topic,
    long count, int qos, int window, int max_inflight, int payload_size);

#endif

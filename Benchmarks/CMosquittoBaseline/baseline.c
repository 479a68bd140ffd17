#include "CMosquittoBaseline.h"

#include <mosquitto.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    pthread_mutex_t mutex;
    pthread_cond_t changed;
    long acknowledged;
    int connected; /* 0 waiting, 1 connected, -1 refused */
} baseline_state;

static void on_connect(struct mosquitto *mosq, void *userdata, int rc) {
    (void)mosq;
    baseline_state *state = userdata;
    pthread_mutex_lock(&state->mutex);
    state->connected = rc == 0 ? 1 : -1;
    pthread_cond_broadcast(&state->changed);
    pthread_mutex_unlock(&state->mutex);
}

static void on_publish(struct mosquitto *mosq, void *userdata, int mid) {
    (void)mosq;
    (void)mid;
    baseline_state *state = userdata;
    pthread_mutex_lock(&state->mutex);
    state->acknowledged++;
    pthread_cond_broadcast(&state->changed);
    pthread_mutex_unlock(&state->mutex);
}

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

whereabouts_c_publish_result whereabouts_c_publish_benchmark(
    const char *host, int port, const char *client_id, const char *topic,
    long count, int qos, int window, int max_inflight, int payload_size) {
    whereabouts_c_publish_result result = {0, 0.0, 0};
    baseline_state state;
    pthread_mutex_init(&state.mutex, NULL);
    pthread_cond_init(&state.changed, NULL);
    state.acknowledged = 0;
    state.connected = 0;

    mosquitto_lib_init();
    struct mosquitto *mosq = mosquitto_new(client_id, true, &state);
    if (!mosq) {
        result.error = MOSQ_ERR_NOMEM;
        return result;
    }
    mosquitto_int_option(mosq, MOSQ_OPT_TCP_NODELAY, 1);
    mosquitto_max_inflight_messages_set(mosq, (unsigned int)max_inflight);
    mosquitto_connect_callback_set(mosq, on_connect);
    mosquitto_publish_callback_set(mosq, on_publish);

    char *payload = malloc((size_t)payload_size + 1);
    memset(payload, 'x', (size_t)payload_size);

    int rc = mosquitto_connect(mosq, host, port, 30);
    if (rc == MOSQ_ERR_SUCCESS) rc = mosquitto_loop_start(mosq);
    if (rc != MOSQ_ERR_SUCCESS) {
        result.error = rc;
        goto done;
    }
    pthread_mutex_lock(&state.mutex);
    while (state.connected == 0) pthread_cond_wait(&state.changed, &state.mutex);
    int refused = state.connected < 0;
    pthread_mutex_unlock(&state.mutex);
    if (refused) {
        result.error = MOSQ_ERR_CONN_REFUSED;
        goto stop;
    }

    double start = now_seconds();
    for (long sent = 0; sent < count; sent++) {
        pthread_mutex_lock(&state.mutex);
        while (sent - state.acknowledged >= window) pthread_cond_wait(&state.changed, &state.mutex);
        pthread_mutex_unlock(&state.mutex);
        rc = mosquitto_publish(mosq, NULL, topic, payload_size, payload, qos, false);
        if (rc != MOSQ_ERR_SUCCESS) {
            result.error = rc;
            goto stop;
        }
    }
    pthread_mutex_lock(&state.mutex);
    while (state.acknowledged < count) pthread_cond_wait(&state.changed, &state.mutex);
    result.acknowledged = state.acknowledged;
    pthread_mutex_unlock(&state.mutex);
    result.seconds = now_seconds() - start;

stop:
    mosquitto_disconnect(mosq);
    mosquitto_loop_stop(mosq, false);
done:
    mosquitto_destroy(mosq);
    free(payload);
    pthread_cond_destroy(&state.changed);
    pthread_mutex_destroy(&state.mutex);
    return result;
}

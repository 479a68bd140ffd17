#ifndef WHEREABOUTS_CMOSQUITTO_SHIM_H
#define WHEREABOUTS_CMOSQUITTO_SHIM_H
#include <mosquitto.h>
#include <mqtt_protocol.h>
#endif

#!/usr/bin/env python3
"""An OwnTracks app, as far as the broker can tell: loads an imported configuration (the
`_type: configuration` JSON of an .otrc file or an owntracks:///config?inline= link) into a
paho-mqtt client shaped as the Android or the iOS app, publishes one location, and reports the
messages its subscriptions receive. Used by Tests/ProvisioningTests.

Shapes, from the apps' sources:
- Android (owntracks/android MqttConnectionConfiguration.kt): client id `clientId`, user name and
  password always, clean session `cleanSession`, MQTT `mqttProtocolLevel`; last will
  {"_type":"lwt"} on `pubTopicBase`, QoS 0, not retained; subscribes to `subTopic` split at
  spaces, at `subQos`; locations at `pubQos`, retained as `pubRetain`.
- iOS (owntracks/ios MQTT.plist defaults, Settings.m): the same, but the user name and password
  only with `auth`; last will {"_type":"lwt","tst":...} on `pubTopicBase` (willTopic empty),
  QoS 1 (willqos_preference), not retained.
Encrypted with `encryptionKey` as both apps do (secretbox, key = the secret's UTF-8 bytes,
zero-padded to 32). Output: one JSON object per line: {"connack": rc}, then
{"topic", "retained", "payload"} per message; exit 0 when every --wait-for topic got a
non-empty message (and every --wait-empty one an empty one), 3 when refused, 4 on timeout.
"""
import argparse
import base64
import json
import re
import sys
import threading
import time

import paho.mqtt.client as mqtt


def seal(secret, plaintext):
    import nacl.secret
    import nacl.utils
    key = secret.encode("utf-8")[:32].ljust(32, b"\0")
    box = nacl.secret.SecretBox(key)
    nonce = nacl.utils.random(nacl.secret.SecretBox.NONCE_SIZE)
    return json.dumps({"_type": "encrypted", "data": base64.b64encode(box.encrypt(plaintext, nonce)).decode()})


def location(shape, config, lat, lon):
    now = int(time.time())
    message = {"_type": "location", "acc": 12, "alt": 40, "batt": 80, "bs": 1, "lat": lat, "lon": lon,
               "tid": config["tid"], "tst": now, "vac": 3, "vel": 0}
    if shape == "android":
        message.update({"conn": "w", "created_at": now, "m": 1, "t": "u"})
    else:
        message.update({"conn": "w", "created_at": now, "m": 1, "t": "u", "p": 101.3, "topic": config["pubTopicBase"]})
    return json.dumps(message).encode()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("config")
    parser.add_argument("--shape", choices=["android", "ios"], required=True)
    parser.add_argument("--lat", type=float)
    parser.add_argument("--lon", type=float)
    parser.add_argument("--wait-for", action="append", default=[])
    parser.add_argument("--wait-empty", action="append", default=[])
    parser.add_argument("--timeout", type=float, default=20)
    arguments = parser.parse_args()
    with open(arguments.config) as f:
        config = json.load(f)
    assert config["_type"] == "configuration" and config["mode"] == 0

    protocol = mqtt.MQTTv311 if config.get("mqttProtocolLevel", 4) == 4 else mqtt.MQTTv31
    client = mqtt.Client(client_id=config["clientId"], clean_session=config["cleanSession"], protocol=protocol)
    if arguments.shape == "android" or config.get("auth"):
        client.username_pw_set(config["username"], config["password"])
    if arguments.shape == "android":
        client.will_set(config["pubTopicBase"], json.dumps({"_type": "lwt"}), qos=0, retain=False)
    else:
        client.will_set(config["pubTopicBase"], json.dumps({"_type": "lwt", "tst": int(time.time())}), qos=1, retain=False)
    if config["tls"]:
        client.tls_set()

    lock = threading.Lock()
    done = threading.Event()
    connack = []
    seen, emptied = set(), set()

    def report(obj):
        with lock:
            print(json.dumps(obj), flush=True)

    def check():
        if set(arguments.wait_for) <= seen and set(arguments.wait_empty) <= emptied:
            done.set()

    def on_connect(client, userdata, flags, rc):
        connack.append(rc)
        report({"connack": rc})
        if rc != 0:
            done.set()
            return
        if config.get("sub"):
            if arguments.shape == "android":
                # MqttConnectionConfiguration.kt: subTopic.split(" ").toSortedSet()
                filters = sorted(set(config["subTopic"].split(" ")))
            else:
                # OwnTracksAppDelegate.m connectForcingCleanSession: componentsSeparatedByCharactersInSet:
                # whitespaceCharacterSet, which keeps the empty pieces between two separators
                filters = re.split(r"[ \t]", config["subTopic"])
            client.subscribe([(f, config["subQos"]) for f in filters])

    def on_message(client, userdata, message):
        payload = message.payload.decode("utf-8", "replace")
        report({"topic": message.topic, "retained": bool(message.retain), "payload": payload})
        with lock:
            (seen if payload else emptied).add(message.topic)
            if payload:
                emptied.discard(message.topic)
        check()

    client.on_connect = on_connect
    client.on_message = on_message
    client.connect(config["host"], config["port"], keepalive=60)
    client.loop_start()
    deadline = time.time() + arguments.timeout
    while not connack and time.time() < deadline:
        time.sleep(0.02)
    if not connack:
        report({"error": "no CONNACK"})
        return 4
    if connack[0] != 0:
        client.loop_stop()
        return 3
    if arguments.lat is not None:
        payload = location(arguments.shape, config, arguments.lat, arguments.lon)
        if config.get("encryptionKey"):
            payload = seal(config["encryptionKey"], payload)
        info = client.publish(config["pubTopicBase"], payload, qos=config["pubQos"], retain=config["pubRetain"])
        info.wait_for_publish()
    check()
    ok = done.wait(max(0, deadline - time.time()))
    client.disconnect()
    client.loop_stop()
    return 0 if ok else 4


if __name__ == "__main__":
    sys.exit(main())

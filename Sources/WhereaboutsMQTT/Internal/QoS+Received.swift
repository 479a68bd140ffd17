extension QoS {
    /// The QoS libmosquitto reports for a received message (`mosquitto_message.qos`): 0, 1 or 2.
    /// Nothing else reaches the message callback: a PUBLISH with both QoS bits set is a protocol
    /// violation on which the receiver closes the connection (MQTT 3.1.1 and MQTT 5,
    /// [MQTT-3.3.1-4]).
    init(received level: Int32) {
        switch level {
        case 0: self = .atMostOnce
        case 1: self = .atLeastOnce
        default: self = .exactlyOnce
        }
    }
}

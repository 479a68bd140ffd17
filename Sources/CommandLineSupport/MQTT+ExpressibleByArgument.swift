import ArgumentParser
import WhereaboutsMQTT

/// `--broker-kind mosquitto` or `nats`.
extension BrokerKind: ExpressibleByArgument {}

/// `--qos 0`, `1` or `2`.
extension QoS: ExpressibleByArgument {}

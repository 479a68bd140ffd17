import ArgumentParser
import WhereaboutsMQTT

/// `--broker-kind mosquitto` or `nats`.
extension BrokerKind: ExpressibleByArgument {}

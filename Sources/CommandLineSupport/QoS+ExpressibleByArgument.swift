import ArgumentParser
import WhereaboutsMQTT

/// `--qos 0`, `1` or `2`.
extension QoS: ExpressibleByArgument {}

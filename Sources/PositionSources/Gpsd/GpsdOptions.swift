/// Where and how the gpsd source connects.
public struct GpsdOptions: Sendable, Hashable {
    /// The gpsd host. Default `localhost`.
    public var host: String
    /// The gpsd TCP port. Default 2947, gpsd's registered port.
    public var port: Int
    /// Seconds to wait for a TCP connection before counting the attempt as failed. Default 5 s.
    public var connectTimeout: Double
    /// Seconds before the first reconnection attempt after gpsd goes away. Default 0.5 s.
    var initialReconnectDelay: Double
    /// The longest wait between reconnection attempts; the delay doubles up to this. Default 30 s.
    var maximumReconnectDelay: Double

    /// Creates options; every argument has a default.
    public init(
        host: String = "localhost",
        port: Int = 2947,
        connectTimeout: Double = 5,
        initialReconnectDelay: Double = 0.5,
        maximumReconnectDelay: Double = 30
    ) {
        self.host = host
        self.port = port
        self.connectTimeout = connectTimeout
        self.initialReconnectDelay = initialReconnectDelay
        self.maximumReconnectDelay = maximumReconnectDelay
    }
}

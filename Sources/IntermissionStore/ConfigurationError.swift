/// A configuration that cannot be used: a key of the configuration file, an option, or a database
/// URL a storage driver refuses.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, naming the key.
    public var message: String
    /// The key, as a path (`server.port`, `vod[0].breaks[1].duration`), when one key is at fault.
    public var key: String?

    /// Creates an error.
    public init(message: String) {
        self.message = message
    }

    /// Creates an error about one key.
    public init(key: String, message: String) {
        self.key = key
        self.message = message
    }

    /// The message.
    public var description: String { self.message }
}

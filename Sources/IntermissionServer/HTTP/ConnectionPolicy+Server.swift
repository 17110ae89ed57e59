import IntermissionHTTP
import Logging
import NIOCore

extension ConnectionPolicy {
    /// The main server's policy: raises the soft descriptor limit to the hard one (logged), then caps
    /// connections below it; a configured cap above the automatic one is lowered, with a warning.
    static func server(configuration: ServerConfiguration, metrics: ServerMetrics, logger: Logger) -> ConnectionPolicy {
        let limits = DescriptorTable.raiseSoftLimit()
        let limit = limits?.after.soft ?? 1024
        if let limits, limits.after.soft != limits.before.soft {
            logger.info(
                "raised the descriptor limit",
                metadata: ["from": "\(limits.before.soft)", "to": "\(limits.after.soft)"]
            )
        }
        let (maximum, lowered) = Self.maximum(configured: configuration.maximumConnections, descriptorLimit: limit)
        if lowered {
            logger.warning(
                "server.maxConnections lowered to stay below the descriptor limit",
                metadata: [
                    "configured": "\(configuration.maximumConnections ?? 0)", "maximumConnections": "\(maximum)",
                    "descriptorLimit": "\(limit)",
                ]
            )
        }
        logger.info(
            "connection limits",
            metadata: [
                "maximumConnections": "\(maximum)", "descriptorLimit": "\(limit)",
                "requestHeadTimeout": "\(configuration.requestHeadTimeout)",
            ]
        )
        return ConnectionPolicy(
            gate: ConnectionGate(maximum: maximum, metrics: metrics, logger: logger),
            // A connection that sends nothing is silent too: the idle timeout bounds its head as well.
            requestHeadTimeout: ServerApplicationParts.timeAmount(
                max(min(configuration.requestHeadTimeout, configuration.idleTimeout), .milliseconds(100))
            ),
            idleTimeout: ServerApplicationParts.idleTimeAmount(configuration.idleTimeout)
        )
    }
}

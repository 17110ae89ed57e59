// The IntermissionServer module. Filled by its issue; the dependency arrows are set in Package.swift.

/// Namespace and version marker for the `IntermissionServer` module.
public enum IntermissionServerModule {
    /// The module's name, as used in diagnostics and logs.
    public static let name = "IntermissionServer"
}

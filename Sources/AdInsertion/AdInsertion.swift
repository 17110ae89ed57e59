// The AdInsertion module. Filled by its issue; the dependency arrows are set in Package.swift.

/// Namespace and version marker for the `AdInsertion` module.
public enum AdInsertionModule {
    /// The module's name, as used in diagnostics and logs.
    public static let name = "AdInsertion"
}

// The GroupPlayback module. Filled by its issue; the dependency arrows are set in Package.swift.

/// Namespace and version marker for the `GroupPlayback` module.
public enum GroupPlaybackModule {
    /// The module's name, as used in diagnostics and logs.
    public static let name = "GroupPlayback"
}

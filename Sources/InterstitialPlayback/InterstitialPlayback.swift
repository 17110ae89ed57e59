// The InterstitialPlayback module. Filled by its issue; the dependency arrows are set in Package.swift.

/// Namespace and version marker for the `InterstitialPlayback` module.
public enum InterstitialPlaybackModule {
    /// The module's name, as used in diagnostics and logs.
    public static let name = "InterstitialPlayback"
}

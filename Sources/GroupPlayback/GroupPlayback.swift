// The GroupPlayback module: a placeholder until issue 12 (coordinated playback across viewers with
// different ads, receiver handoff) builds it. It depends on nothing yet; Package.swift gives it its
// dependencies with its code.

/// Namespace and version marker for the `GroupPlayback` module.
public enum GroupPlaybackModule {
    /// The module's name, as used in diagnostics and logs.
    public static let name = "GroupPlayback"
}

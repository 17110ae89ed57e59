import HLSPlaylist

/// Namespace marker for the `HLSInterstitials` module.
public enum HLSInterstitialsModule {
    /// The module's name.
    public static let name = "HLSInterstitials"
}

extension Duration {
    /// Whole and fractional seconds as a `Double`, for wording and rates.
    var secondsValue: Double {
        let (seconds, attoseconds) = self.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

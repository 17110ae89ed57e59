/// What both drivers' `creative_conditioning` table means, written once.
package enum ConditioningRows {
    /// The condition (SQL that SQLite and PostgreSQL read alike) of a row a worker may claim at
    /// `at` (Unix milliseconds): pending, failed and due for another attempt, or conditioning
    /// under a lease that has expired (or that has none), as `CreativeConditioning.isClaimable(at:)`
    /// decides in memory.
    ///
    /// The instant is written as a number (it is the caller's clock, never a request's text).
    package static func claimable(at: Int64) -> String {
        """
        (state = 'pending'
            OR (state = 'failed' AND next_attempt_ms IS NOT NULL AND next_attempt_ms <= \(at))
            OR (state = 'conditioning' AND (lease_expiry_ms IS NULL OR lease_expiry_ms <= \(at))))
        """
    }
}

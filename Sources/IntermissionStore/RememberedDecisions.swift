import AdInsertion

/// Decisions remembered for questions asked again: at most `capacity`, and when full the one
/// least recently used goes first (approximately: the "clock" algorithm, where each entry has a
/// used mark that a lookup sets, and the hand that looks for a slot to reuse clears marks and
/// takes the first entry without one), so a lookup costs a hash and a flag, never a list update.
///
/// Holds only copies of committed rows; forgetting one costs a database read, never an answer.
package struct RememberedDecisions {
    private struct Entry {
        var key: DecisionKey
        var decision: AdDecision
        var used: Bool
    }

    /// The most entries kept.
    package let capacity: Int
    private var slots: [DecisionKey: Int] = [:]
    private var entries: [Entry] = []
    private var hand = 0

    /// An empty index of at most `capacity` entries (at least 1).
    package init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// How many entries it holds.
    package var count: Int { self.entries.count }

    /// The decision for `key`, marked as used, or `nil`.
    package mutating func decision(for key: DecisionKey) -> AdDecision? {
        guard let slot = self.slots[key] else { return nil }
        self.entries[slot].used = true
        return self.entries[slot].decision
    }

    /// Forgets the entry of `key`, if any: the last entry takes its slot.
    package mutating func forget(_ key: DecisionKey) {
        guard let slot = self.slots.removeValue(forKey: key) else { return }
        let last = self.entries.removeLast()
        if slot < self.entries.count {
            self.entries[slot] = last
            self.slots[last.key] = slot
        }
        if self.hand >= self.entries.count { self.hand = 0 }
    }

    /// Remembers `decision` under `key`, in place of the least recently used entry when full.
    package mutating func remember(_ decision: AdDecision, for key: DecisionKey) {
        if let slot = self.slots[key] {
            self.entries[slot].decision = decision
            return
        }
        if self.entries.count < self.capacity {
            self.slots[key] = self.entries.count
            self.entries.append(Entry(key: key, decision: decision, used: false))
            return
        }
        // At most one turn: every mark the hand passes is cleared.
        while self.entries[self.hand].used {
            self.entries[self.hand].used = false
            self.hand = (self.hand + 1) % self.capacity
        }
        self.slots[self.entries[self.hand].key] = nil
        self.entries[self.hand] = Entry(key: key, decision: decision, used: false)
        self.slots[key] = self.hand
        self.hand = (self.hand + 1) % self.capacity
    }
}

import Foundation
import GroupCoordination
import IntermissionStore
import Logging

/// A relayed group: inputs are numbered by the transport and applied in that order, here and on
/// every other instance that holds the group (see `GroupRelay`).
extension GroupSession {
    /// Sends a join (a `hello` and where it comes from) through the relay and waits for the hub's
    /// answer to it (at most ``relayedJoinTimeout``).
    func relayedJoin(
        _ hello: GroupMessage,
        arrival: GroupHub.Arrival,
        connection: GroupConnection,
        relay: GroupRelayLink
    ) async -> Bool {
        guard case .hello(let participantID, _, _, _) = hello else { return false }
        let nonce = UInt64.random(in: 1...UInt64.max)
        self.pendingJoins[nonce] = PendingJoin(
            participant: participantID,
            connection: connection,
            result: nil,
            waiter: nil
        )
        var input = RelayedInput(
            kind: .join,
            participant: participantID,
            at: self.clock.now().nanoseconds,
            instance: relay.instance,
            nonce: nonce,
            message: hello
        )
        input.connection = arrival.connection
        input.address = arrival.address
        input.newSecret = arrival.newSecret
        await self.publish(input, relay: relay, failureTo: connection)
        if let result = self.pendingJoins[nonce]?.result {
            self.pendingJoins[nonce] = nil
            return result
        }
        guard self.pendingJoins[nonce] != nil else { return false }
        let timer = self.timer
        // Owned by this join: cancelled (`defer`) as soon as it is answered.
        let timeout = Task { [weak self] in
            try? await timer.sleep(for: GroupSession.relayedJoinTimeout)
            await self?.resolveJoin(nonce: nonce, admitted: false)
        }
        defer { timeout.cancel() }
        return await withCheckedContinuation { continuation in
            self.pendingJoins[nonce]?.waiter = continuation
        }
    }

    /// Answers a waiting join once (its input applied, or its time is up).
    func resolveJoin(nonce: UInt64, admitted: Bool) {
        guard var pending = self.pendingJoins[nonce], pending.result == nil else { return }
        if let waiter = pending.waiter {
            self.pendingJoins[nonce] = nil
            waiter.resume(returning: admitted)
        } else {
            pending.result = admitted
            self.pendingJoins[nonce] = pending
        }
    }

    /// Appends an input through the transport and applies it here (with any before it that this
    /// instance has not seen); when the transport fails, the participant is told and nothing is
    /// applied.
    func publish(_ input: RelayedInput, relay: GroupRelayLink, failureTo connection: GroupConnection?) async {
        let n: Int64
        do {
            let data = String(decoding: try JSONEncoder().encode(input), as: UTF8.self)
            n = try await relay.transport.appendGroupInput(group: self.id, data: data)
        } catch {
            relay.logger.warning(
                "group relay: an input was not stored",
                metadata: ["group": "\(self.id)", "kind": "\(input.kind.rawValue)", "error": "\(error)"]
            )
            if input.kind == .join { self.resolveJoin(nonce: input.nonce, admitted: false) }
            connection?.send(.error(code: "relay-failed", message: "the group's database did not take the message"))
            return
        }
        await self.receive(GroupRelayNotice(group: self.id, n: n, data: nil), input: input)
    }

    /// An announced input (another instance's or this one's): applied in number order, after
    /// those before it, which are read from the transport when they are missing here.
    func receive(_ notice: GroupRelayNotice, input: RelayedInput? = nil) async {
        guard notice.n > self.applied else { return }
        if let input {
            self.buffered[notice.n] = input
        } else if let data = notice.data {
            self.buffered[notice.n] = try? JSONDecoder().decode(RelayedInput.self, from: Data(data.utf8))
        }
        self.highestKnown = max(self.highestKnown, notice.n)
        await self.drain()
    }

    /// Applies buffered inputs in order until one is missing, reading missing ones from the
    /// transport.
    ///
    /// One task drains at a time; inputs that arrive meanwhile are buffered and taken
    /// by that task.
    private func drain() async {
        guard !self.draining, let relay = self.relay else { return }
        self.draining = true
        defer { self.draining = false }
        while self.applied < self.highestKnown {
            if let entry = self.buffered.removeValue(forKey: self.applied + 1) {
                self.applied += 1
                if let input = entry { await self.apply(input, number: self.applied, relay: relay) }
                continue
            }
            let rows: [(n: Int64, data: String)]
            do {
                rows = try await relay.transport.groupInputs(group: self.id, after: self.applied)
            } catch {
                relay.logger.warning(
                    "group relay: missing inputs could not be read",
                    metadata: ["group": "\(self.id)", "after": "\(self.applied)", "error": "\(error)"]
                )
                break
            }
            guard let first = rows.first else { break }
            if first.n > self.applied + 1 {
                // The inputs before were dropped: the group emptied there, so it starts again.
                self.hub = nil
                self.applied = first.n - 1
            }
            for row in rows where row.n > self.applied && self.buffered[row.n] == nil {
                self.buffered[row.n] = try? JSONDecoder().decode(RelayedInput.self, from: Data(row.data.utf8))
                self.highestKnown = max(self.highestKnown, row.n)
            }
        }
        self.buffered = self.buffered.filter { $0.key > self.applied }
    }

    /// Sends a leave for each participant connected to an instance not in `live` that this
    /// instance has known for at least `silence` (an instance killed, or cut from the database,
    /// sends none).
    ///
    /// Several instances may send one for the same participant: the hub ignores a
    /// leave of someone not in the group.
    func evictParticipants(notOn live: Set<String>, silentFor silence: Duration) async {
        guard let relay = self.relay else { return }
        let now = self.timer.elapsed
        let gone = self.owners.filter { participant, owner in
            !live.contains(owner.instance) && now - owner.since >= silence && !self.evicting.contains(participant)
        }
        for participant in gone.keys.sorted() {
            self.evicting.insert(participant)
            relay.logger.notice(
                "group relay: a participant's instance went silent; it leaves the group",
                metadata: ["group": "\(self.id)", "participant": "\(participant)"]
            )
            await self.publishLeave(of: participant, connection: nil, relay: relay)
        }
    }

    /// Sends the leave of a participant's `connection` (whichever it is on: `nil`) through the
    /// relay, stamped now by this instance.
    func publishLeave(of participant: String, connection: UInt64?, relay: GroupRelayLink) async {
        var input = RelayedInput(
            kind: .leave,
            participant: participant,
            at: self.clock.now().nanoseconds,
            instance: relay.instance,
            nonce: 0,
            message: nil
        )
        input.connection = connection
        await self.publish(input, relay: relay, failureTo: nil)
    }

    /// Applies one input to the hub at its own instant and delivers the hub's messages to the
    /// participants connected to this instance.
    private func apply(_ input: RelayedInput, number: Int64, relay: GroupRelayLink) async {
        let now = ClockInstant(nanoseconds: input.at)
        let mine = input.instance == relay.instance
        switch input.kind {
        case .join:
            guard let hello = input.message, case .hello(let id, _, _, _) = hello, id == input.participant else {
                return
            }
            let arrival = GroupHub.Arrival(
                address: input.address,
                connection: input.connection ?? input.nonce,
                newSecret: input.newSecret
            )
            let (outputs, admitted) = self.applyJoin(hello, arrival: arrival, at: now)
            if admitted { self.owners[id] = (input.instance, self.timer.elapsed) }
            var replyTo: GroupConnection?
            if mine, let pending = self.pendingJoins[input.nonce] {
                replyTo = pending.connection
                if admitted { self.connect(id, pending.connection) }
                self.resolveJoin(nonce: input.nonce, admitted: admitted)
            } else if admitted, let former = self.connections.removeValue(forKey: id) {
                // The participant came back through another instance: its connection here is over.
                former.close()
            }
            self.deliver(outputs, replyTo: replyTo)
        case .message:
            guard let message = input.message else { return }
            let outputs = self.applyMessage(message, from: input.participant, at: now)
            self.deliver(outputs, replyTo: mine ? self.connections[input.participant] : nil)
        case .leave:
            if input.connection == nil || self.hub?.connection(of: input.participant) == input.connection {
                self.owners[input.participant] = nil
                self.evicting.remove(input.participant)
            }
            let (outputs, emptied) = self.applyLeave(input.participant, connection: input.connection, at: now)
            self.deliver(outputs, replyTo: nil)
            // Awaited here, by the draining task (inputs that arrive meanwhile wait in `buffered`).
            if emptied && mine { try? await relay.transport.forgetGroup(self.id, through: number) }
        }
    }
}

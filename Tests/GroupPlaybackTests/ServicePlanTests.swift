import GroupPlayback
import HLSInterstitials
import HLSPlaylist
import Testing

/// The receiver's service plans as one rule: under plan C only the first ad of a pod keeps its
/// restrictions, whether the pod is events that start together or one event's list of ads.
@Suite struct ServicePlanTests {
    @Test func onlyPlanCLiftsRestrictionsAndOnlyAfterThePodsFirstAd() {
        for position in [0, 1, 2, Int.max] {
            #expect(ServicePlan.a.keepsRestrictions(atPositionInPod: position))
            #expect(ServicePlan.b.keepsRestrictions(atPositionInPod: position))
            #expect(ServicePlan.c.keepsRestrictions(atPositionInPod: position) == (position == 0))
        }
    }

    @Test func planCKeepsTheFirstEventOfEachPodRestricted() {
        func event(_ id: String, at seconds: Double) -> InterstitialEvent {
            var event = InterstitialEvent(identifier: id, time: MediaTime(seconds: seconds))
            event.restrictions = [.skip, .jump]
            return event
        }
        // Two pods (at 10 s and 30 s), the second listed out of order, and a lone event at 20 s.
        let events = [
            event("a1", at: 10), event("b1", at: 30), event("a2", at: 10), event("solo", at: 20),
            event("a3", at: 10), event("b2", at: 30),
        ]
        let planned = Receiver.applying(.c, to: events)
        let restricted = planned.filter { !$0.restrictions.isEmpty }.map(\.identifier)
        #expect(restricted == ["a1", "b1", "solo"])
        #expect(Receiver.applying(.a, to: events) == events)
        #expect(Receiver.applying(.b, to: events) == events)
    }
}

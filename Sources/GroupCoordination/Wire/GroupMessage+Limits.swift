extension GroupMessage {
    /// The longest free-text field a participant may send, in UTF-8 bytes: participant IDs,
    /// secrets, suspension reasons and the identifiers of ranges and breaks.
    public static let maximumTextBytes = 128
    /// The most entries a list in a participant's message may have: the ranges and breaks of a
    /// description, the suspension reasons of a policy.
    public static let maximumListEntries = 256

    /// Why the hub does not take this message from a participant (a field or a list over its
    /// bound), or `nil` when every field is within ``maximumTextBytes`` and
    /// ``maximumListEntries``.
    public var fieldProblem: String? {
        switch self {
        case .hello(let id, let description, let policy, let secret):
            var texts = [("participantID", id)]
            if let secret { texts.append(("secret", secret)) }
            texts += description.nonPrimaryRanges.map { ("description.nonPrimaryRanges[].identifier", $0.identifier) }
            texts += description.interstitialBreaks.map {
                ("description.interstitialBreaks[].identifier", $0.identifier)
            }
            texts += policy.suspensionReasonsThatTriggerWaiting.map {
                ("policy.suspensionReasonsThatTriggerWaiting[]", $0.rawValue)
            }
            let lists = [
                ("description.nonPrimaryRanges", description.nonPrimaryRanges.count),
                ("description.interstitialBreaks", description.interstitialBreaks.count),
                ("policy.suspensionReasonsThatTriggerWaiting", policy.suspensionReasonsThatTriggerWaiting.count),
            ]
            if let (field, _) = lists.first(where: { $0.1 > Self.maximumListEntries }) {
                return "\(field) has more than \(Self.maximumListEntries) entries"
            }
            return texts.lazy.compactMap { Self.textProblem(field: $0.0, text: $0.1) }.first
        case .suspend(let reason, _, _):
            return Self.textProblem(field: "reason", text: reason.rawValue)
        case .ping, .command, .resume, .welcome, .refused, .pong, .state, .error:
            return nil
        }
    }

    /// A text field's problem: over ``maximumTextBytes``.
    static func textProblem(field: String, text: String) -> String? {
        guard text.utf8.count > Self.maximumTextBytes else { return nil }
        return "\(field) is longer than \(Self.maximumTextBytes) bytes"
    }
}

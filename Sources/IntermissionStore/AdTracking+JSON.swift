import AdInsertion
import HLSInterstitials

extension AdTracking {
    /// The JSON `JSONEncoder` makes of these URLs (the stores write it directly, keys in a fixed
    /// order): `impression`, `error`, `events` (event names sorted), `clickThrough` when there is
    /// one, `clickTracking`, `progress` when there is one (each `offset`, `url`).
    package var jsonValue: JSONValue {
        func list(_ urls: [String]) -> JSONValue { .array(urls.map { .string($0) }) }
        var members: [(String, JSONValue)] = [
            ("impression", list(self.impression)),
            ("error", list(self.error)),
            ("events", .object(self.events.sorted { $0.key < $1.key }.map { ($0.key, list($0.value)) })),
        ]
        if let click = self.clickThrough { members.append(("clickThrough", .string(click))) }
        members.append(("clickTracking", list(self.clickTracking)))
        if !self.progress.isEmpty {
            let items = self.progress.map {
                JSONValue.object([("offset", .string($0.offset.description)), ("url", .string($0.url))])
            }
            members.append(("progress", .array(items)))
        }
        return .object(members)
    }
}

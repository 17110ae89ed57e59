import HLSPlaylist

extension DraftNamePolicy {
    /// The attributes of a date range as the engine reads them under this policy.
    ///
    /// ``accept``: each draft attribute with a spec name is replaced by its spec name unless the spec
    /// name is present (then the draft attribute is dropped: the spec name wins), and the
    /// `X-RESTRICT` member `SEEK` is read as `SKIP`. ``refuse``: `X-CUE` is dropped (the only draft
    /// name the playlist model itself falls back to); other draft names stay user-defined attributes.
    func resolved(_ attributes: AttributeList) -> AttributeList {
        switch self {
        case .refuse:
            guard attributes.contains(AttributeName.legacyCue.rawValue) else { return attributes }
            var result = attributes
            result.attributes.removeAll { $0.name == AttributeName.legacyCue.rawValue }
            return result
        case .accept:
            let drafts = attributes.attributes.contains { DraftName.attributes[$0.name]?.specName != nil }
            let seek =
                attributes[.restrict]?.stringList?.contains(DraftName.restrictSeek.name) ?? false
            guard drafts || seek else { return attributes }
            var result = AttributeList()
            var present = Set(attributes.names)
            for attribute in attributes.attributes {
                if let draft = DraftName.attributes[attribute.name], let spec = draft.specName {
                    if present.insert(spec).inserted { result.append(spec, attribute.value) }
                    continue
                }
                if attribute.name == AttributeName.restrict.rawValue, let members = attribute.value.stringList {
                    var read: [String] = []
                    for member in members {
                        let name = member == DraftName.restrictSeek.name ? DraftName.restrictSeek.specName! : member
                        if !read.contains(name) { read.append(name) }
                    }
                    result.append(attribute.name, .stringList(read))
                    continue
                }
                result.append(attribute)
            }
            return result
        }
    }
}

extension AssetList {
    /// The key a `SKIP-CONTROL` member is read as: its spec key under ``DraftNamePolicy/accept``
    /// when it is a draft key and the spec key is not given too, else the key as written.
    static func readKey(_ key: String, given: Set<String>, draftNames: DraftNamePolicy) -> String {
        guard draftNames == .accept, let spec = DraftName.assetListKeys[key]?.specName, !given.contains(spec) else {
            return key
        }
        return spec
    }
}

import AdInsertion
import Crypto
import Foundation
import HLSInterstitials
import HLSPlaylist

/// Signs and checks the server's tokens with HMAC-SHA256: beacon tokens (which slot of which
/// decision a `/v1/track` URL stands for) and plan tokens (which plan a viewer has).
///
/// A token is `{payload}.{signature}`, both base64url without padding; the signature covers a
/// purpose prefix and the payload, so a beacon token is never a valid plan token or the reverse.
/// A token cannot be edited (any change breaks the signature) or forged without the key, so a
/// beacon URL writes only the rows of the decision it was handed out with.
struct TokenSigner: Sendable {
    private let key: SymmetricKey

    /// The longest token accepted, in bytes (a beacon token of the longest IDs stays under it).
    static let maximumTokenBytes = 2048

    /// A signer with `key`, or a random 256-bit key when `nil`.
    init(key: [UInt8]?) {
        self.key = key.map { SymmetricKey(data: $0) } ?? SymmetricKey(size: .bits256)
    }

    private func signature(_ purpose: String, _ payload: String) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Array((purpose + "|" + payload).utf8), using: self.key)
        return Self.base64URL(Array(code))
    }

    private func payload(of token: String, purpose: String) -> String? {
        guard token.utf8.count <= Self.maximumTokenBytes else { return nil }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let mac = Self.bytes(base64URL: parts[1]), mac.count == 32 else { return nil }
        let payload = String(parts[0])
        let valid = HMAC<SHA256>.isValidAuthenticationCode(
            mac,
            authenticating: Array((purpose + "|" + payload).utf8),
            using: self.key
        )
        return valid ? payload : nil
    }

    // MARK: Beacons

    /// What a beacon token stands for.
    struct Slot: Sendable, Hashable {
        var viewer: String
        var scope: String
        var breakID: String
        var slot: Int
        var creativeID: String
        var plan: ViewerPlan
        /// The nonce of the decision the token was handed out with (`AdDecision.nonce`; empty for
        /// an anonymous one): the beacon is accepted only while that decision is the one stored.
        var nonce: String
    }

    /// The token of a slot.
    func beaconToken(_ slot: Slot) -> String {
        let json: JSONValue = .array([
            .string(slot.viewer), .string(slot.scope), .string(slot.breakID), .number(slot.slot),
            .string(slot.creativeID), .string(slot.plan.rawValue), .string(slot.nonce),
        ])
        let payload = Self.base64URL(json.serialized())
        return payload + "." + self.signature("beacon", payload)
    }

    /// The slot a beacon token stands for, or `nil` when it is not one this key signed.
    func slot(ofBeaconToken token: String) -> Slot? {
        guard let payload = self.payload(of: token, purpose: "beacon"), let bytes = Self.bytes(base64URL: payload[...]),
            case .array(let items)? = try? JSONValue.parse(bytes), items.count == 7,
            let viewer = items[0].stringValue, let scope = items[1].stringValue, let breakID = items[2].stringValue,
            let slot = items[3].intValue, slot >= 0, let creative = items[4].stringValue,
            let plan = items[5].stringValue.flatMap(ViewerPlan.init(rawValue:)), let nonce = items[6].stringValue
        else { return nil }
        return Slot(
            viewer: viewer,
            scope: scope,
            breakID: breakID,
            slot: slot,
            creativeID: creative,
            plan: plan,
            nonce: nonce
        )
    }

    // MARK: Viewers

    /// What the public web page shows for a viewer ID: the first 8 hex digits of its HMAC-SHA256
    /// under this key (purpose `viewer`), enough to tell the viewers of a page apart and useless to
    /// ask for their asset lists (the ID cannot be recovered or guessed from it without the key).
    func viewerTag(_ viewer: String) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Array(("viewer|" + viewer).utf8), using: self.key)
        return code.prefix(4).map { byte in
            let hex = String(byte, radix: 16)
            return hex.count == 1 ? "0" + hex : hex
        }.joined()
    }

    // MARK: Plans

    /// A plan token: `{plan}-{expiry in Unix seconds}` signed (expiry 0: never expires).
    func planToken(_ plan: ViewerPlan, expires: Int64 = 0) -> String {
        let payload = "\(plan.rawValue)-\(max(0, expires))"
        return payload + "." + self.signature("plan", payload)
    }

    /// Why a plan token is refused, or its plan.
    enum PlanCheck: Sendable, Hashable {
        case plan(ViewerPlan)
        case badSignature
        case expired
    }

    /// Checks a plan token at `now`.
    func plan(ofToken token: String, now: DateTime) -> PlanCheck {
        guard let payload = self.payload(of: token, purpose: "plan") else { return .badSignature }
        let parts = payload.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let plan = ViewerPlan(rawValue: String(parts[0])), let expires = Int64(parts[1]),
            expires >= 0
        else { return .badSignature }
        if expires > 0 && now.millisecondsSince1970 / 1000 >= expires { return .expired }
        return .plan(plan)
    }

    // MARK: Base64url

    static func base64URL(_ bytes: [UInt8]) -> String {
        var text = Data(bytes).base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    static func bytes(base64URL text: Substring) -> [UInt8]? {
        guard
            text.utf8.allSatisfy({ byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            })
        else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.utf8.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard).map { Array($0) }
    }
}

/// Plan tokens for viewers' multivariant URLs (`?plan=…`): what `intermission token` prints.
public enum PlanTokens {
    /// A token for `plan`, signed with `key` (the server's `tracking.key`).
    ///
    /// - Parameters:
    ///   - plan: The viewer's plan.
    ///   - key: The HMAC-SHA256 key, as configured.
    ///   - expires: When the token stops being accepted, in Unix seconds (0: never).
    /// - Returns: The token, safe in a query string as it is.
    public static func mint(_ plan: ViewerPlan, key: [UInt8], expires: Int64 = 0) -> String {
        TokenSigner(key: key).planToken(plan, expires: expires)
    }
}

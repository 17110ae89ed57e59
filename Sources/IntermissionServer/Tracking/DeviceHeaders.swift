import Foundation
import HTTPTypes
import Hummingbird

/// The viewer's device as a request describes it, for the ad server and for beacon forwards:
/// `X-Device-IP` (else the first `X-Forwarded-For` address) and `X-Device-User-Agent` (else
/// `User-Agent`).
///
/// A value longer than ``maximumLength`` bytes, or with anything but printable ASCII, is not sent
/// at all (a cut address or agent would be a false one).
struct DeviceHeaders: Sendable, Hashable {
    /// The longest value passed on, in bytes.
    static let maximumLength = 512

    /// The device's IP address, if given.
    var ip: String?
    /// The device's user agent, if given.
    var userAgent: String?

    /// Reads them from `request`'s headers.
    init(of request: Request) {
        func field(_ name: HTTPField.Name) -> String? {
            guard let value = request.headers[name], !value.isEmpty, value.utf8.count <= Self.maximumLength,
                value.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F })
            else { return nil }
            return value
        }
        let forwarded = field(.xForwardedFor).flatMap { list -> String? in
            let address = list.prefix { $0 != "," }.trimmingCharacters(in: .whitespaces)
            return address.isEmpty ? nil : address
        }
        self.ip = field(.xDeviceIP) ?? forwarded
        self.userAgent = field(.xDeviceUserAgent) ?? field(.userAgent)
    }

    /// As header fields (`X-Device-IP`, `X-Device-User-Agent`), the ones given.
    var fields: [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        if let ip = self.ip { fields.append(("X-Device-IP", ip)) }
        if let agent = self.userAgent { fields.append(("X-Device-User-Agent", agent)) }
        return fields
    }
}

extension HTTPField.Name {
    static let xForwardedFor = Self("X-Forwarded-For")!
    static let xDeviceIP = Self("X-Device-IP")!
    static let xDeviceUserAgent = Self("X-Device-User-Agent")!
}

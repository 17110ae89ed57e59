import AdInsertion
import ArgumentParser
import Foundation
import IntermissionServer

/// `intermission token`: mints a viewer-plan token for the server's multivariant URLs.
struct Token: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a signed viewer-plan token (append it to a multivariant URL as ?plan=TOKEN).",
        discussion: """
            The key is the server's tracking.key. Plan A: ads with the playlist's restrictions; \
            B: no ads; C: the pod's ads after the first may be skipped. A token cannot be edited: \
            the server refuses a changed or foreign token with 403.
            """
    )

    @Option(help: "The plan: A, B or C.")
    var plan: String

    @Option(help: "The HMAC key (the server's tracking.key), 16 to 1024 printable ASCII characters.")
    var key: String

    @Option(help: "Seconds from now after which the token is refused (0: never).")
    var expiresIn: Int64 = 0

    func validate() throws {
        guard ViewerPlan(rawValue: self.plan.uppercased()) != nil else {
            throw ValidationError("--plan must be A, B or C")
        }
        guard (16...1024).contains(self.key.utf8.count), self.key.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw ValidationError("--key must be 16 to 1024 printable ASCII characters")
        }
        guard (0...(10 * 365 * 86_400)).contains(self.expiresIn) else {
            throw ValidationError("--expires-in must be 0 to 315360000 seconds")
        }
    }

    func run() throws {
        let plan = ViewerPlan(rawValue: self.plan.uppercased()) ?? .a
        let expires = self.expiresIn == 0 ? 0 : Int64(Date().timeIntervalSince1970) + self.expiresIn
        print(PlanTokens.mint(plan, key: Array(self.key.utf8), expires: expires))
    }
}

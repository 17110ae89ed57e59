import Hummingbird
import IntermissionHTTP
import Logging

/// `GET /media/{mount}/**`: files of the local folders mounted by the configuration.
///
/// Served by Hummingbird's `FileMiddleware`, which reads through `FileIO`: NIO's file system on
/// its thread pool, so no event loop and no thread of the cooperative pool waits for the disk.
/// ``MediaFilesMiddleware`` in front of it refuses file types that are not media and sets the
/// content type.
struct MediaController: Sendable {
    /// Folders by mount name.
    let mounts: [String: String]
    let logger: Logger

    /// Adds the middleware that serves the mounts (a middleware, not a route: `FileMiddleware`
    /// answers the paths under its base and passes the others on).
    func addMiddleware(to router: Router<ServerRequestContext>) {
        router.add(middleware: MediaFilesMiddleware())
        for (name, folder) in self.mounts.sorted(by: { $0.key < $1.key }) {
            router.add(
                middleware: FileMiddleware(
                    folder,
                    urlBasePath: "/media/\(name)",
                    logger: self.logger
                )
            )
        }
    }
}

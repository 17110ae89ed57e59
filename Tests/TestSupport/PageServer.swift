import Foundation

/// Python's `http.server` on loopback (or any Python HTTP server script that prints its port), for
/// tests that need a real origin in a process of its own.
///
/// It runs as a ``BackgroundProcess``: the test can write to its standard input (a script may wait
/// there for the test to let an answer go), and it is killed when stopped or let go of.
public final class PageServer: Sendable {
    /// The Python process.
    public let process: BackgroundProcess
    /// The loopback port it listens on.
    public let port: Int

    /// Serves the files of `directory`.
    public convenience init?(directory: URL) async {
        await self.init(arguments: ["-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", directory.path]) {
            text in
            // "Serving HTTP on 127.0.0.1 port 40123 (http://127.0.0.1:40123/) ..."
            guard let range = text.range(of: "port "), text[range.upperBound...].contains(" ") else { return nil }
            return Int(text[range.upperBound...].prefix { $0.isNumber })
        }
    }

    /// Runs `python3 -u` with `arguments`; `port` finds the port in what it prints first (`nil` until
    /// the whole of it has come).
    ///
    /// `nil` when it cannot start or names no port within 30 s.
    public init?(arguments: [String], port: (String) -> Int?) async {
        guard let process = try? BackgroundProcess("/usr/bin/env", ["python3", "-u"] + arguments),
            let port = await process.awaitOutput(port)
        else { return nil }
        self.process = process
        self.port = port
    }

    /// A Python `ThreadingHTTPServer` whose `do_GET` runs `handler` (the body of the method, in
    /// Python, with `self` the `BaseHTTPRequestHandler`), one thread per request, logging nothing.
    ///
    /// The handler may wait on `gate` (a `threading.Event`) to hold its answer until the test
    /// calls ``openGate()``: a slow origin that is as slow as the test needs, without a fixed
    /// pause. The modules `http.server`, `sys`, `threading` and `time` are imported.
    public convenience init?(handler: String) async {
        let body = handler.split(separator: "\n", omittingEmptySubsequences: false).map { "        " + $0 }
        let script = """
            import http.server, sys, threading, time
            gate = threading.Event()
            def open_gate():
                sys.stdin.readline()
                gate.set()
            threading.Thread(target=open_gate, daemon=True).start()
            class Handler(http.server.BaseHTTPRequestHandler):
                def do_GET(self):
            \(body.joined(separator: "\n"))
                def log_message(self, *args):
                    pass
            server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
            server.daemon_threads = True
            print(server.server_address[1], flush=True)
            server.serve_forever()
            """
        // The port is the first line, once it has come whole.
        await self.init(arguments: ["-c", script]) { text in text.firstIndex(of: "\n").flatMap { Int(text[..<$0]) } }
    }

    /// Opens the `gate` of a server made with ``init(handler:)``: every answer held there, and every
    /// one after, goes out.
    public func openGate() {
        self.process.write("open\n")
    }

    /// Stops the server: SIGKILL (the child may have inherited a signal mask that blocks SIGTERM).
    ///
    /// It does not wait for the exit; the process is reaped on a thread of its own.
    public func stop() {
        self.process.stop()
    }
}

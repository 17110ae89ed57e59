import HTTPFetch

/// Network failures said in words; the type lives in `HTTPFetch`, shared with the CLI and the server.
public typealias NetworkErrorText = HTTPFetch.NetworkErrorText

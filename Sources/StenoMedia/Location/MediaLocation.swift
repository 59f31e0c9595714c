import Foundation

/// Where a recording lies: a path on storage every worker mounts, or an http(s) URL.
public enum MediaLocation: Sendable, Hashable, CustomStringConvertible {
    case file(path: String)
    case url(String)

    /// Reads an argument as a user types it: `http://` and `https://` are URLs, `file://` and
    /// everything else paths.
    public init(_ argument: String) {
        let lowered = argument.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") {
            self = .url(argument)
        } else if lowered.hasPrefix("file://"), let url = URL(string: argument), url.isFileURL {
            self = .file(path: url.path)
        } else {
            self = .file(path: argument)
        }
    }

    /// What FFmpeg opens. Local paths go through the `file:` protocol explicitly, so that a file
    /// name containing a colon is never taken for another protocol.
    var ffmpegAddress: String {
        switch self {
        case .file(let path): "file:" + path
        case .url(let url): url
        }
    }

    /// Why this location cannot be read at all, before any I/O: a URL of a scheme Steno does not
    /// read (`ftp://`, `s3://`, which would otherwise be taken for a relative path), or an http
    /// URL without a host.
    public var problem: String? {
        switch self {
        case .file(let path):
            guard let match = path.prefixMatch(of: /([A-Za-z][A-Za-z0-9+.\-]*):\/\//) else { return nil }
            return Self.unsupportedScheme(String(match.1))
        case .url(let text):
            guard let host = URLComponents(string: text)?.host, !host.isEmpty else {
                return "the URL has no host: write it as https://host/path"
            }
            return nil
        }
    }

    public static func unsupportedScheme(_ scheme: String) -> String {
        "only files and http(s) URLs can be read, not \(scheme.lowercased()):// URLs: download the recording "
            + "to storage the workers mount, or serve it over https"
    }

    public var isNetwork: Bool {
        if case .url = self { return true }
        return false
    }

    /// Safe to log: a URL loses its user, password, query and fragment (signed URLs carry secrets there).
    public var description: String {
        switch self {
        case .file(let path):
            return path
        case .url(let text):
            guard var components = URLComponents(string: text) else { return "<unparseable URL>" }
            components.user = nil
            components.password = nil
            let hadQuery = components.query != nil
            components.query = nil
            components.fragment = nil
            return (components.string ?? "<unparseable URL>") + (hadQuery ? "?…" : "")
        }
    }
}

import Foundation

/// One recording source a user might hand Steno, broken or hostile in one way, and what Steno
/// must make of it at each door: `steno probe`, `steno enqueue` and a worker.
public struct BadSource: Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// A file that exists but is not a usable recording.
        case brokenFile = "broken file"
        /// A path that is not a regular file, or leads nowhere.
        case specialPath = "special path"
        /// A URL whose server refuses, fails or never answers.
        case network
        /// Input shaped to break output or leak: escapes, newlines, credentials.
        case hostile
        /// Nothing usable at all: a blank argument, a scheme Steno does not read.
        case malformed
    }

    public var kind: Kind
    public var name: String
    public var source: String
    /// Whether the recording can be read: probe succeeds and a worker transcribes it.
    public var readable: Bool
    /// Whether `steno enqueue` takes it (it checks paths and URLs, it does not decode them).
    public var enqueueable: Bool
    /// Words the error must contain, at any door that refuses it (lower-cased match).
    public var mentions: [String]
    /// Text that must never be printed or stored, such as URL credentials.
    public var secret: String?

    public var description: String { "\(kind.rawValue): \(name)" }
}

/// The catalogue of bad sources, with the files, special files and servers it needs; `close()`
/// removes and stops them. Tests at every door (probe, enqueue, worker) go through the same list.
public final class BadInputCatalogue: @unchecked Sendable {
    // @unchecked: every property is set in `init` and only read afterwards.
    public let sources: [BadSource]
    private let directory: URL
    private let servers: [FaultServer]

    /// `hangingURLs`: whether to include a server that accepts and never answers (the caller
    /// bounds it with a short source timeout).
    public init(hangingURLs: Bool = true) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("steno-catalogue-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let notFound = try FaultServer(replies: [], then: .json(404, #"{"error":"not here"}"#))
        let forbidden = try FaultServer(replies: [], then: .json(403, #"{"error":"signature expired"}"#))
        var servers = [notFound, forbidden]
        var sources: [BadSource] = []
        func add(_ kind: BadSource.Kind, _ name: String, _ source: String, readable: Bool = false, enqueueable: Bool = true,
                 mentions: [String] = [], secret: String? = nil) {
            sources.append(BadSource(kind: kind, name: name, source: source, readable: readable, enqueueable: enqueueable,
                                     mentions: mentions, secret: secret))
        }

        add(.brokenFile, "an empty file", FixtureBook.file("empty.mp3").path, enqueueable: false, mentions: ["empty"])
        add(.brokenFile, "a text file named .mp3", FixtureBook.file("not-audio.mp3").path)
        add(.brokenFile, "a video without audio", FixtureBook.file("silent-video.mp4").path, mentions: ["audio"])
        add(.brokenFile, "a truncated download", FixtureBook.file("truncated.m4b").path, mentions: ["ends early"])
        let shared: [(name: String, readable: Bool, enqueueable: Bool, mentions: [String])] = [
            ("emptyfile.mp3", false, false, ["empty"]),
            ("nero-chapters.m4b", false, true, ["ends early", "46:57"]),
            ("bad-xing.mp3", true, true, []),
            ("simple.mkv", true, true, []),
            ("toc_many_children.mp3", false, true, ["ends early"]),
        ]
        // The real-media corpus's broken files, where it is present (`RealMediaCorpus`).
        for file in shared {
            for path in RealMediaCorpus.paths([file.name]) {
                add(.brokenFile, "shared \(file.name)", path, readable: file.readable, enqueueable: file.enqueueable, mentions: file.mentions)
            }
        }

        let fifo = directory.appendingPathComponent("pipe.mp3").path
        guard mkfifo(fifo, 0o600) == 0 else { throw TestEnvironmentError("mkfifo \(fifo) failed: errno \(errno)") }
        add(.specialPath, "a FIFO", fifo, enqueueable: false, mentions: ["pipe"])
        let linkToFIFO = directory.appendingPathComponent("link-to-pipe.mp3").path
        try FileManager.default.createSymbolicLink(atPath: linkToFIFO, withDestinationPath: fifo)
        add(.specialPath, "a symbolic link to a FIFO", linkToFIFO, enqueueable: false, mentions: ["pipe"])
        add(.specialPath, "a device", "/dev/zero", enqueueable: false, mentions: ["device"])
        let loop = directory.appendingPathComponent("loop.mp3").path
        try FileManager.default.createSymbolicLink(atPath: loop, withDestinationPath: loop)
        add(.specialPath, "a symbolic link to itself", loop, enqueueable: false)
        add(.specialPath, "a missing file", directory.appendingPathComponent("missing.m4b").path, enqueueable: false, mentions: ["no such file"])
        let folder = directory.appendingPathComponent("folder.mp3")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        add(.specialPath, "a directory named like a recording", folder.path, enqueueable: false, mentions: ["directory"])

        add(.network, "a URL answering 404", notFound.baseURL + "/book.m4b", mentions: ["404"])
        add(.network, "a URL answering 403", forbidden.baseURL + "/book.m4b?X-Amz-Signature=0f0f", mentions: ["403"])
        add(.network, "a URL whose server refuses connections", "http://127.0.0.1:9/book.m4b", mentions: ["127.0.0.1"])
        if hangingURLs {
            let silent = try FaultServer(replies: [], then: .hang)
            servers.append(silent)
            add(.network, "a URL that never answers", silent.baseURL + "/book.m4b", mentions: ["127.0.0.1"])
        }

        let hostileName = directory.appendingPathComponent("evil\u{1B}[31mred\u{1B}[0m\nsecond line.mp3").path
        try FileManager.default.copyItem(atPath: FixtureBook.file("book.mp3").path, toPath: hostileName)
        add(.hostile, "a name with escape sequences and a newline", hostileName, readable: true)
        let password = TestSecret.make("pw")
        add(.hostile, "a URL with credentials", "http://alice:\(password)@\(notFound.baseURL.dropFirst("http://".count))/book.m4b",
            mentions: ["404"], secret: password)
        let longName = directory.appendingPathComponent(String(repeating: "n", count: 300) + ".mp3").path
        add(.hostile, "a file name longer than the system allows", longName, enqueueable: false)

        add(.malformed, "a blank argument", "", enqueueable: false, mentions: ["empty"])
        add(.malformed, "an ftp URL", "ftp://example.com/book.mp3", enqueueable: false, mentions: ["ftp://", "https"])
        add(.malformed, "a URL without a host", "http:///book.mp3", enqueueable: false, mentions: ["host"])

        self.sources = sources
        self.servers = servers
    }

    public func close() {
        servers.forEach { $0.stop() }
        try? FileManager.default.removeItem(at: directory)
    }
}

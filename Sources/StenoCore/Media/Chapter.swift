/// One chapter of a recording: a title and a half-open range `[start, end)` on the media's clock.
public struct Chapter: Sendable, Hashable, Codable {
    /// Position in the normalised list, from 0.
    public var index: Int
    /// The container's title, or `nil` when it has none (an empty title counts as none).
    public var title: String?
    public var start: MediaTime
    public var end: MediaTime

    public init(index: Int, title: String?, start: MediaTime, end: MediaTime) {
        self.index = index
        self.title = title.flatMap { $0.isEmpty ? nil : $0 }
        self.start = start
        self.end = end
    }

    public var duration: MediaTime { end - start }
}

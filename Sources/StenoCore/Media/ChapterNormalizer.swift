/// Turns the chapter marks a container declares into chapters that tile the recording.
///
/// Real files declare marks out of order, past the end of the audio (Matroska files cut short,
/// Nero chapters of a 47-hour book over a few seconds of audio), with zero length (ID3 `CTOC`
/// markers), overlapping by a rounding error, or with gaps. Workers need chapters that cover
/// every sample exactly once, so the rules are, in order:
///
/// 1. sort by start, then end;
/// 2. clamp to `[0, duration]`;
/// 3. drop chapters that are empty after clamping (zero-length and past-the-end marks);
/// 4. where a chapter overlaps the next, end it where the next begins (a mark is where its
///    chapter starts) and drop it if that empties it;
/// 5. fill gaps: the first chapter starts at 0, each chapter ends where the next starts, the
///    last ends at `duration`;
/// 6. no chapter left: one untitled chapter `[0, duration)`.
///
/// Without a known duration, the ends cannot be clamped or filled: the last chapter keeps its
/// declared end.
public enum ChapterNormalizer {
    public static func normalize(_ marks: [Chapter], duration: MediaTime?) -> [Chapter] {
        var chapters = survivingMarks(marks, duration: duration)
        guard !chapters.isEmpty else {
            guard let duration, duration > .zero else { return [] }
            return [Chapter(index: 0, title: nil, start: .zero, end: duration)]
        }
        chapters[0].start = .zero
        for position in chapters.indices.dropLast() {
            chapters[position].end = chapters[position + 1].start
        }
        if let duration {
            chapters[chapters.count - 1].end = duration
        }
        for position in chapters.indices {
            chapters[position].index = position
        }
        return chapters
    }

    /// How many declared marks become chapters; 0 means the recording is one untitled chapter.
    public static func usableMarkCount(_ marks: [Chapter], duration: MediaTime?) -> Int {
        survivingMarks(marks, duration: duration).count
    }

    /// Rules 1 to 4: sorted, clamped, without empty marks, overlaps trimmed.
    private static func survivingMarks(_ marks: [Chapter], duration: MediaTime?) -> [Chapter] {
        var chapters = marks.sorted { ($0.start, $0.end) < ($1.start, $1.end) }
        if let duration {
            chapters = chapters.map { mark in
                var chapter = mark
                chapter.start = MediaTime.min(MediaTime.max(chapter.start, .zero), duration)
                chapter.end = MediaTime.min(MediaTime.max(chapter.end, .zero), duration)
                return chapter
            }
        }
        chapters.removeAll { $0.end <= $0.start }
        var trimmed: [Chapter] = []
        for (position, chapter) in chapters.enumerated() {
            var chapter = chapter
            if position + 1 < chapters.count {
                chapter.end = MediaTime.min(chapter.end, chapters[position + 1].start)
            }
            if chapter.start < chapter.end { trimmed.append(chapter) }
        }
        return trimmed
    }
}

import ArgumentParser

/// Media ids on the command line are positive numbers, as `steno list` prints them.
enum MediaIDs {
    static func validate(_ ids: [Int64]) throws {
        if let bad = ids.first(where: { $0 <= 0 }) {
            throw ValidationError("media ids are positive numbers, as `steno list` prints them; \(bad) is not one")
        }
    }
}

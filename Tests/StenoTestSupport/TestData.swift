import Foundation
public import StenoPostgres

/// Rows the job tests need to point their foreign keys at.
public enum TestData {
    /// Inserts a media row and returns its id.
    public static func insertMedia(_ client: PostgresClient, source: String = "/media/book.m4b") async throws -> Int64 {
        try await client.query("INSERT INTO media (source) VALUES (\(source)) RETURNING id").single().decode("id")
    }

    /// Inserts a chapter of `mediaID` and returns its id.
    public static func insertChapter(_ client: PostgresClient, mediaID: Int64, index: Int) async throws -> Int64 {
        try await client.query(
            "INSERT INTO chapters (media_id, index, start_seconds, end_seconds) VALUES (\(mediaID), \(index), \(Double(index) * 60), \(Double(index + 1) * 60)) RETURNING id"
        ).single().decode("id")
    }
}

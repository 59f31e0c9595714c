import Foundation
import StenoCore
import StenoInfrastructure

/// Which files in the upload directory are left over: named as Steno names uploads, old enough
/// that no request can still be writing them or about to record them, and named by no media.
///
/// Such files come from `steno delete` (the CLI does not own the directory, so it leaves the
/// recording), from a server that stopped between receiving an upload and recording its media,
/// and from operators' own `DELETE FROM media`. The rule is pure; `UploadSweeper` carries it out.
struct UploadSweep: Sendable {
    /// A regular file in the upload directory.
    struct File: Sendable, Equatable {
        var name: String
        var modified: Date
        var bytes: Int64
    }

    /// Younger files are left alone: an upload is written and then recorded within one request,
    /// and a file is modified with every buffer written, so an hour is far beyond any request.
    var minimumAge: Duration = .seconds(3600)

    /// The files to ask the database about: Steno's names, unmodified for `minimumAge`.
    func candidates(_ files: [File], now: Date) -> [File] {
        let cutoff = now.addingTimeInterval(-minimumAge.seconds)
        return files.filter { $0.modified <= cutoff && Self.isUploadName($0.name) }
    }

    /// The candidates no media names, given the paths (`directory/name`) the media table holds.
    func orphans(_ candidates: [File], in directory: String, named referenced: Set<String>) -> [File] {
        candidates.filter { !referenced.contains(Self.path(of: $0, in: directory)) }
    }

    static func path(of file: File, in directory: String) -> String {
        directory + "/" + file.name
    }

    /// `UploadFile.create`'s names: a lowercased UUID, then an extension of 1-10 lowercase letters
    /// and digits, or none. Nothing else in the directory is Steno's to remove.
    static func isUploadName(_ name: String) -> Bool {
        let parts = name.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let stem = parts[0]
        guard isLowercaseUUID(stem) else { return false }
        guard parts.count == 2 else { return true }
        let ext = parts[1]
        return (1...10).contains(ext.count) && ext.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber) }
    }

    /// 8-4-4-4-12 lowercase hexadecimal digits, written out here: Foundation's `UUID(uuidString:)`
    /// on Linux takes a non-hexadecimal last character.
    private static func isLowercaseUUID(_ text: Substring) -> Bool {
        let groups = text.split(separator: "-", omittingEmptySubsequences: false)
        return groups.map(\.count) == [8, 4, 4, 4, 12]
            && groups.allSatisfy { $0.allSatisfy { ("0"..."9").contains($0) || ("a"..."f").contains($0) } }
    }
}

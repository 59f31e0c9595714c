import Foundation
import StenoMedia
import StenoObjectStore

#if canImport(Glibc)
import Glibc
#endif

/// Turns `steno enqueue` arguments (files, directories, quoted globs, http(s) URLs) into the
/// sources to store, checking each one the way a worker will need it: the file exists, is a
/// readable, non-empty regular file, and lies under the media root when one is configured.
struct MediaSourceResolver {
    /// Only these are taken from a directory; a file named explicitly may have any extension
    /// (the worker's probe decides whether it holds audio).
    static let mediaExtensions: Set<String> = [
        "mp3", "m4a", "m4b", "aac", "wav", "flac", "ogg", "oga", "opus", "wma", "aif", "aiff", "amr",
        "mp4", "m4v", "mkv", "mov", "webm", "avi", "mpg", "mpeg", "ts", "3gp",
    ]

    /// Where the media must live, as workers mount it; `nil` for anywhere.
    var mediaRoot: String?
    /// The object store's bucket (`STENO_S3_BUCKET`): `s3://` sources must name an object in it.
    var objectBucket: String?
    var currentDirectory: String = FileManager.default.currentDirectoryPath

    struct Resolution {
        /// Absolute paths and URLs, in argument order, without repeats.
        var sources: [String] = []
        /// One line per argument that cannot be enqueued.
        var problems: [String] = []
        /// Files in directories skipped because their extension is not a media one.
        var skippedFiles = 0
    }

    func resolve(_ arguments: [String]) -> Resolution {
        var resolution = Resolution()
        var seen = Set<String>()
        func add(_ source: String) {
            if seen.insert(source).inserted { resolution.sources.append(source) }
        }
        let root = mediaRoot.map { canonical(absolute($0)) }
        if let mediaRoot, let root, !isDirectory(root) {
            resolution.problems.append("the media root \(mediaRoot) is not a directory (STENO_MEDIA_ROOT or --media-root)")
            return resolution
        }
        for argument in arguments {
            if let scheme = URL(string: argument)?.scheme?.lowercased(), argument.contains("://") {
                if let problem = urlProblem(argument, scheme: scheme) {
                    resolution.problems.append(problem)
                } else {
                    add(argument)
                }
                continue
            }
            let path = absolute(argument)
            var candidates: [String]
            if argument.contains(where: { "*?[".contains($0) }) && !FileManager.default.fileExists(atPath: path) {
                candidates = expandGlob(path)
                if candidates.isEmpty {
                    resolution.problems.append("\(argument): no file matches this pattern")
                    continue
                }
            } else {
                candidates = [path]
            }
            for candidate in candidates {
                if isDirectory(candidate) {
                    let (files, skipped) = mediaFiles(in: candidate)
                    resolution.skippedFiles += skipped
                    if files.isEmpty {
                        resolution.problems.append("\(candidate): the directory holds no media files (\(Self.extensionList))")
                    }
                    for file in files {
                        if let problem = fileProblem(file, root: root) { resolution.problems.append(problem) } else { add(file) }
                    }
                } else if let problem = fileProblem(candidate, root: root) {
                    resolution.problems.append(problem)
                } else {
                    add(candidate)
                }
            }
        }
        return resolution
    }

    private static var extensionList: String { mediaExtensions.sorted().joined(separator: ", ") }

    private func urlProblem(_ text: String, scheme: String) -> String? {
        if scheme == "s3" {
            guard let objectBucket else {
                return "\(text): s3:// sources are read from the fleet's object store, and none is configured: set STENO_S3_BUCKET, STENO_S3_ENDPOINT and the credentials as the workers have them"
            }
            guard let address = ObjectAddress(text) else { return "\(text): write an object as s3://\(objectBucket)/KEY" }
            guard address.bucket == objectBucket else {
                return "\(text): the fleet reads only its own bucket, \(objectBucket) (STENO_S3_BUCKET); copy the object there first"
            }
            return nil
        }
        guard scheme == "http" || scheme == "https" else {
            return "\(text): \(MediaLocation.unsupportedScheme(scheme))"
        }
        return MediaLocation(text).problem.map { "\(text): \($0)" }
    }

    private func fileProblem(_ path: String, root: String?) -> String? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            return "\(path): no such file"
        }
        if isDirectory.boolValue { return "\(path): is a directory" }
        // Followed to its target: a link to a pipe or a device is refused like the thing itself.
        let attributes = try? FileManager.default.attributesOfItem(atPath: canonical(path))
        if let type = attributes?[.type] as? FileAttributeType, type != .typeRegular {
            let what = switch type {
            case .typeCharacterSpecial, .typeBlockSpecial: "a device"
            case .typeSocket: "a socket"
            default: "a named pipe (FIFO)"
            }
            return "\(path): \(what), not a regular file; enqueue the recording's file itself"
        }
        guard FileManager.default.isReadableFile(atPath: path) else {
            return "\(path): not readable by this user (workers need to read it too)"
        }
        if let size = attributes?[.size] as? NSNumber, size.intValue == 0 {
            return "\(path): the file is empty"
        }
        if let root {
            let resolved = canonical(path)
            guard resolved == root || resolved.hasPrefix(root.hasSuffix("/") ? root : root + "/") else {
                return "\(path): outside the media root \(root) that workers mount (STENO_MEDIA_ROOT or --media-root)"
            }
        }
        return nil
    }

    private func mediaFiles(in directory: String) -> (files: [String], skipped: Int) {
        guard let enumerator = FileManager.default.enumerator(atPath: directory) else { return ([], 0) }
        var files: [String] = []
        var skipped = 0
        while let relative = enumerator.nextObject() as? String {
            let name = (relative as NSString).lastPathComponent
            if relative.split(separator: "/").contains(where: { $0.hasPrefix(".") }) { continue }
            let path = (directory as NSString).appendingPathComponent(relative)
            guard !isDirectory(path) else { continue }
            if Self.mediaExtensions.contains((name as NSString).pathExtension.lowercased()) {
                files.append(path)
            } else {
                skipped += 1
            }
        }
        return (files.sorted(), skipped)
    }

    private func expandGlob(_ pattern: String) -> [String] {
        var result = glob_t()
        defer { globfree(&result) }
        guard glob(pattern, 0, nil, &result) == 0 else { return [] }
        return (0..<Int(result.gl_pathc)).compactMap { index in result.gl_pathv[index].map { String(cString: $0) } }.sorted()
    }

    private func absolute(_ path: String) -> String {
        let expanded = (path as NSString).expandingTildeInPath
        let joined = expanded.hasPrefix("/") ? expanded : (currentDirectory as NSString).appendingPathComponent(expanded)
        // `.` and `..` removed, symbolic links kept: the source is stored as the user named it.
        return URL(fileURLWithPath: joined).standardized.path
    }

    /// Symbolic links resolved, so that a link cannot point outside the media root unnoticed.
    private func canonical(_ path: String) -> String {
        URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    }

    private func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}

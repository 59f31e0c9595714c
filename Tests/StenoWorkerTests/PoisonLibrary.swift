import Foundation
import StenoTestSupport

/// The test-only library that makes a media crash every worker that opens it
/// (`Tests/Fixtures/poison/poison.c`), built once per run with the toolchain's C compiler.
enum PoisonLibrary {
    /// The word a media's path carries to be poison.
    static let marker = "poison"

    /// The built library's path, for `LD_PRELOAD`.
    static func path() async throws -> String {
        let source = PackageRoot.url.appendingPathComponent("Tests/Fixtures/poison/poison.c").path
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("libsteno-poison-\(getpid()).so").path
        if FileManager.default.fileExists(atPath: output) { return output }
        // The Swift toolchain brings clang; a machine with gcc has cc.
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init) + ["/usr/bin", "/opt/swift/usr/bin"]
        let compiler = ["cc", "clang"].lazy.flatMap { name in path.map { "\($0)/\(name)" } }.first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let compiler else { throw TestEnvironmentError("no C compiler (cc or clang) to build \(source)") }
        let built = try await ChildProcess.run(compiler, ["-shared", "-fPIC", "-O1", "-o", output, source, "-ldl"])
        guard built.status == 0 else { throw TestEnvironmentError("cannot build \(source): \(built.standardError)") }
        return output
    }

    /// A copy of `fixture` whose path marks it as poison.
    static func media(copying fixture: URL) throws -> URL {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("\(marker)-\(UUID().uuidString)-\(fixture.lastPathComponent)")
        try FileManager.default.copyItem(at: fixture, to: copy)
        return copy
    }
}

import Foundation
import FoundationEssentials
import StenoCore
import StenoTestSupport
import Testing

/// One version, written once (`StenoVersion`), shown by every executable.
@Suite("Executable versions")
struct ExecutableVersionTests {
    @Test("steno, steno-worker and steno-asr print the one version with --version", arguments: ["steno", "steno-worker", "steno-asr"])
    func versionFlag(_ product: String) async throws {
        let result = try await ChildProcess.run(PackageRoot.product(product).path, ["--version"], timeLimit: .seconds(30))
        #expect(result.status == 0, "\(product) --version: \(result.standardError)")
        #expect(result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == StenoVersion.current)
    }
}

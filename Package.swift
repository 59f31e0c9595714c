// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "steno",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "steno", targets: ["steno"]),
        .executable(name: "steno-asr", targets: ["steno-asr"]),
        .library(name: "StenoInfrastructure", targets: ["StenoInfrastructure"]),
        .library(name: "StenoCore", targets: ["StenoCore"]),
        .library(name: "StenoPostgres", targets: ["StenoPostgres"]),
        .library(name: "StenoStore", targets: ["StenoStore"]),
        .library(name: "StenoMedia", targets: ["StenoMedia"]),
        .library(name: "StenoTranscription", targets: ["StenoTranscription"]),
        .library(name: "StenoWorker", targets: ["StenoWorker"]),
        .library(name: "StenoVoice", targets: ["StenoVoice"]),
        .executable(name: "steno-worker", targets: ["steno-worker"]),
        .executable(name: "steno-api", targets: ["steno-api"]),
        .library(name: "StenoAPI", targets: ["StenoAPI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
    ],
    targets: [
        // System libraries. Only the matching wrapper module imports each of them.
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswresample-dev", "libavfilter-dev"])]
        ),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(
            name: "CPocketSphinx",
            pkgConfig: "pocketsphinx",
            providers: [.apt(["libpocketsphinx-dev", "pocketsphinx-en-us"])]
        ),
        // OpenBLAS: the matrix products of the speaker encoder.
        .systemLibrary(name: "CBLAS", pkgConfig: "openblas", providers: [.apt(["libopenblas-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // glibc's allocator tuning; StenoMedia uses it for the memory FFmpeg's demuxers take.
        .systemLibrary(name: "CMalloc"),
        .systemLibrary(name: "CProcessControl"),

        // How the servers log: plain lines at a terminal, JSON lines for a collector.
        .target(name: "StenoLogging", dependencies: [.product(name: "Logging", package: "swift-log")]),

        // The one module that imports CBLAS: single-precision matrix products, one thread each.
        .target(name: "StenoLinearAlgebra", dependencies: ["CBLAS"], swiftSettings: [.unsafeFlags(["-O"])]),

        // Pure Swift: domain types and logic, no C and no I/O.
        // The one module that imports CZlib: deflate's compressed length, for Whisper's compression ratio.
        .target(name: "StenoZlib", dependencies: ["CZlib"]),
        // Runtime primitives and wire parsing, no domain: concurrency, cancellation, the clock,
        // settings, secret redaction, outbound URL policy, random tokens, multipart, byte ranges.
        .target(name: "StenoInfrastructure", dependencies: ["CProcessControl"]),
        .target(name: "StenoCore", dependencies: ["StenoInfrastructure", "StenoZlib"]),

        // libpq wrapper: connections, the pool, LISTEN/NOTIFY, queries and migrations. No domain SQL.
        .target(
            name: "StenoPostgres",
            dependencies: ["CLibPQ", "StenoInfrastructure", .product(name: "Logging", package: "swift-log")]
        ),

        // Every statement about media, chapters, chunks, segments, jobs, attempts and workers:
        // each state transition is written here once, for the worker and the CLI alike.
        .target(
            name: "StenoStore",
            dependencies: [
                "StenoPostgres", "StenoCore", "StenoInfrastructure", .product(name: "Logging", package: "swift-log"),
                // SHA-256 of API keys: the table keeps the hash, never the key.
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),

        // FFmpeg wrapper: probe, chapters, decode a range to 16 kHz mono, energy profile, encode a chunk in memory.
        .target(
            name: "StenoMedia",
            dependencies: ["CFFmpeg", "CMalloc", "StenoCore", "StenoInfrastructure", .product(name: "Logging", package: "swift-log")]
        ),

        // libcurl client for OpenAI-compatible transcription backends.
        .target(
            name: "StenoTranscription",
            dependencies: ["CCurl", "StenoCore", "StenoInfrastructure", .product(name: "Logging", package: "swift-log")]
        ),

        // The S3-compatible object store media are kept in when machines share no volume:
        // SigV4 signing (swift-crypto's SHA-256 and HMAC), uploads in parts, signed read links.
        // Its requests go over StenoTranscription's curl engine (`HTTPCall`).
        .target(
            name: "StenoObjectStore",
            dependencies: [
                "StenoCore", "StenoInfrastructure", "StenoTranscription", "StenoMedia", .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),

        // pocketsphinx wrapper: offline English recognition with a pool of decoders.
        .target(
            name: "StenoSpeech",
            dependencies: ["CPocketSphinx", "StenoCore", "StenoInfrastructure", .product(name: "Logging", package: "swift-log")]
        ),

        // Speech detection: Silero VAD's forward pass in plain Swift, weights read from the ONNX
        // file faster-whisper's wheel ships; and the speaker encoder (Resemblyzer's GE2E LSTM),
        // weights read from the torch checkpoint its wheel ships, its products on OpenBLAS.
        // Optimised even in debug builds: unoptimised, the forward passes run near real time, and
        // every test that plans or transcribes a chapter would wait on them.
        .target(
            name: "StenoVoice",
            dependencies: ["StenoCore", "StenoInfrastructure", "StenoLinearAlgebra"],
            swiftSettings: [.unsafeFlags(["-O"])]
        ),

        // steno-asr: the local OpenAI-compatible transcription server.
        .target(
            name: "StenoASR",
            dependencies: [
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                "StenoSpeech",
                "StenoMedia",
                "StenoCore", "StenoInfrastructure",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "steno-asr",
            dependencies: [.product(name: "Logging", package: "swift-log"), "StenoASR", "StenoCore", "StenoInfrastructure", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),

        // The admin CLI's commands live in a library so tests and the thin executable share them.
        .target(
            name: "StenoCLI",
            dependencies: [
                "StenoCore", "StenoInfrastructure",
                "StenoPostgres",
                "StenoStore",
                "StenoMedia",
                "StenoObjectStore",
                "StenoTranscription",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(name: "steno", dependencies: [.product(name: "ArgumentParser", package: "swift-argument-parser"), "StenoCLI"]),

        // The worker runtime: claim loop, job handlers, leases, cancellation, graceful shutdown.
        .target(
            name: "StenoWorker",
            dependencies: [
                .product(name: "CoreMetrics", package: "swift-metrics"),
                "StenoCore", "StenoInfrastructure",
                "StenoPostgres",
                "StenoStore",
                "StenoMedia",
                "StenoObjectStore",
                "StenoTranscription",
                "StenoVoice",
                "StenoSpeech",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "steno-worker",
            dependencies: [
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                "StenoWorker",
                "StenoSpeech",
                "StenoLogging",
                "StenoMedia",
                "StenoObjectStore",
                "StenoPostgres",
                "StenoStore",
                "StenoTranscription",
                "StenoVoice",
                "StenoCore", "StenoInfrastructure",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),

        // steno-api: the HTTP API (Hummingbird) over the same store as the CLI, with the
        // OpenAI-compatible transcription endpoint, an event stream fed by LISTEN/NOTIFY, and
        // the web view (server-rendered pages with Steno's own CSS and JavaScript).
        .target(
            name: "StenoAPI",
            dependencies: [
                .product(name: "CoreMetrics", package: "swift-metrics"), .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"), .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                "StenoCore", "StenoInfrastructure",
                "StenoPostgres",
                "StenoStore",
                "StenoMedia",
                "StenoObjectStore",
                "StenoTranscription",
                "StenoVoice",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "_NIOFileSystem", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                // The web view: pages rendered from Mustache templates, CSRF tokens as HMACs.
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            resources: [.copy("Resources/openapi.yaml"), .copy("Resources/web")]
        ),
        .executableTarget(
            name: "steno-api",
            dependencies: [
                "StenoAPI", "StenoPostgres", "StenoStore", "StenoCore", "StenoInfrastructure", "StenoLogging", "StenoObjectStore", "StenoVoice",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        .target(
            name: "StenoTestSupport",
            dependencies: ["StenoPostgres", "StenoCore", "StenoInfrastructure", "StenoVoice", .product(name: "Logging", package: "swift-log")],
            path: "Tests/StenoTestSupport"
        ),
        // Pure tests: no database, no process, no network; `swift test --filter 'StenoCoreTests|StenoUnitTests'`
        // runs them without STENO_TEST_DATABASE_URL. StenoUnitTests holds those of the modules above StenoCore.
        .testTarget(name: "StenoCoreTests", dependencies: ["StenoCore", "StenoInfrastructure", "StenoTestSupport"]),
        .testTarget(
            name: "StenoObjectStoreTests",
            dependencies: ["StenoObjectStore", "StenoMedia", "StenoTranscription", "StenoCore", "StenoInfrastructure", "StenoTestSupport", .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(
            name: "StenoUnitTests",
            dependencies: [
                .product(name: "ArgumentParser", package: "swift-argument-parser"), .product(name: "HTTPTypes", package: "swift-http-types"), .product(name: "Logging", package: "swift-log"),
                "StenoCLI", "StenoAPI", "StenoASR", "StenoWorker", "StenoStore", "StenoPostgres", "StenoTranscription", "StenoCore", "StenoInfrastructure",
                "StenoTestSupport",
            ]
        ),
        .testTarget(name: "StenoPostgresTests", dependencies: ["StenoPostgres", "StenoCore", "StenoInfrastructure", "StenoTestSupport"]),
        .testTarget(name: "StenoStoreTests", dependencies: ["StenoStore", "StenoPostgres", "StenoCore", "StenoInfrastructure", "StenoTestSupport"]),
        .testTarget(name: "StenoVoiceTests", dependencies: ["StenoVoice", "StenoMedia", "StenoCore", "StenoInfrastructure", "StenoTestSupport"]),
        .testTarget(name: "StenoMediaTests", dependencies: [.product(name: "Logging", package: "swift-log"), "StenoMedia", "StenoCore", "StenoInfrastructure", "StenoTestSupport"]),
        .testTarget(
            name: "StenoTranscriptionTests",
            dependencies: ["StenoTranscription", "StenoCore", "StenoInfrastructure", "StenoTestSupport", .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(name: "StenoSpeechTests", dependencies: ["StenoSpeech", "StenoMedia", "StenoCore", "StenoInfrastructure", "StenoTestSupport"]),
        .testTarget(
            name: "StenoASRTests",
            dependencies: [.product(name: "Logging", package: "swift-log"), .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"), "StenoASR", "StenoTranscription", "StenoMedia", "StenoCore", "StenoInfrastructure", "StenoTestSupport"]
        ),
        .testTarget(name: "StenoCLITests", dependencies: [.product(name: "ArgumentParser", package: "swift-argument-parser"), "StenoCore", "StenoCLI", "StenoPostgres", "StenoStore", "StenoTestSupport"]),
        .testTarget(
            name: "StenoAPITests",
            dependencies: [
                "StenoObjectStore", "StenoAPI", "StenoStore", "StenoPostgres", "StenoCore", "StenoInfrastructure", "StenoTestSupport", .product(name: "Logging", package: "swift-log"),
                           .product(name: "HummingbirdTesting", package: "hummingbird"), .product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "HTTPTypes", package: "swift-http-types"), .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")]
        ),
        .testTarget(
            name: "StenoWorkerTests",
            dependencies: [
                "StenoObjectStore",
                "StenoWorker", "StenoASR", "StenoPostgres", "StenoStore", "StenoMedia", "StenoTranscription", "StenoVoice", "StenoCore", "StenoInfrastructure",
                "StenoSpeech", "StenoTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// As hummingbird builds: every existential spelled `any`, a member visible only in a file that
// imports its module, and an import internal unless the file says `public import`.
let upcomingFeatures: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]
for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + upcomingFeatures
}

// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "steno",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "steno", targets: ["steno"]),
        .library(name: "StenoCore", targets: ["StenoCore"]),
        .library(name: "StenoPostgres", targets: ["StenoPostgres"]),
        .library(name: "StenoMedia", targets: ["StenoMedia"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // System libraries. Only the matching wrapper module imports each of them.
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswresample-dev"])]
        ),
        .systemLibrary(
            name: "CPocketSphinx",
            pkgConfig: "pocketsphinx",
            providers: [.apt(["libpocketsphinx-dev", "pocketsphinx-en-us"])]
        ),
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),

        // Pure Swift: domain types, no C and no I/O.
        .target(name: "StenoCore"),

        // libpq wrapper, migration runner and the job store.
        .target(
            name: "StenoPostgres",
            dependencies: [
                "CLibPQ",
                "StenoCore",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // FFmpeg wrapper: probe, chapters, decode a range to 16 kHz mono, energy profile, encode a chunk in memory.
        .target(
            name: "StenoMedia",
            dependencies: [
                "CFFmpeg",
                "StenoCore",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // pocketsphinx wrapper: offline English recognition with a pool of decoders, for steno-asr.
        .target(
            name: "StenoSpeech",
            dependencies: [
                "CPocketSphinx",
                "StenoCore",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // The admin CLI's commands live in a library so tests and the thin executable share them.
        .target(
            name: "StenoCLI",
            dependencies: [
                "StenoCore",
                "StenoPostgres",
                "StenoMedia",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(name: "steno", dependencies: ["StenoCLI"]),

        // Release-mode benchmark: chunk extraction against the ffmpeg command line; see bench/README.md.
        .executableTarget(
            name: "steno-bench",
            dependencies: [
                "StenoMedia",
                "StenoCore",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "bench/Sources/steno-bench"
        ),

        .target(
            name: "StenoTestSupport",
            dependencies: ["StenoPostgres", "StenoCore"],
            path: "Tests/StenoTestSupport"
        ),
        .testTarget(name: "StenoCoreTests", dependencies: ["StenoCore"]),
        .testTarget(
            name: "StenoPostgresTests",
            dependencies: ["StenoPostgres", "StenoCore", "StenoTestSupport"]
        ),
        .testTarget(name: "StenoMediaTests", dependencies: ["StenoMedia", "StenoCore"]),
        .testTarget(name: "StenoSpeechTests", dependencies: ["StenoSpeech", "StenoMedia", "StenoCore", "StenoTestSupport"]),
        .testTarget(
            name: "StenoCLITests",
            dependencies: ["StenoCLI", "StenoPostgres", "StenoTestSupport"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

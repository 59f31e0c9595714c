// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "steno",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "steno", targets: ["steno"]),
        .library(name: "StenoCore", targets: ["StenoCore"]),
        .library(name: "StenoPostgres", targets: ["StenoPostgres"]),
        .library(name: "StenoTranscription", targets: ["StenoTranscription"]),
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

        // libcurl client for OpenAI-compatible transcription backends. The only module importing CCurl.
        .target(
            name: "StenoTranscription",
            dependencies: [
                "CCurl",
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
                "StenoTranscription",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(name: "steno", dependencies: ["StenoCLI"]),

        .target(
            name: "StenoTestSupport",
            dependencies: ["StenoPostgres", "StenoCore"],
            path: "Tests/StenoTestSupport"
        ),
        .testTarget(
            name: "StenoTranscriptionTests",
            dependencies: [
                "StenoTranscription", "StenoCore", "StenoTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "StenoCoreTests", dependencies: ["StenoCore"]),
        .testTarget(
            name: "StenoPostgresTests",
            dependencies: ["StenoPostgres", "StenoCore", "StenoTestSupport"]
        ),
        .testTarget(
            name: "StenoCLITests",
            dependencies: ["StenoCLI", "StenoPostgres", "StenoTestSupport"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// swift-tools-version: 6.0
import PackageDescription

// The benches, apart from the root package so that a test build does not build them too:
// `swift build -c release --package-path bench` builds `steno-bench` into bench/.build/release.
// The root package is named explicitly because a path dependency's identity is its directory's
// name, which differs between clones and worktrees.
let package = Package(
    name: "steno-bench",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "steno", path: ".."),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // Release-mode benchmark: chunk extraction against the ffmpeg command line; see README.md.
        .executableTarget(
            name: "steno-bench",
            dependencies: [
                .product(name: "StenoMedia", package: "steno"),
                .product(name: "StenoStore", package: "steno"),
                .product(name: "StenoPostgres", package: "steno"),
                .product(name: "StenoVoice", package: "steno"),
                .product(name: "StenoCore", package: "steno"),
                .product(name: "StenoInfrastructure", package: "steno"),
                .product(name: "Logging", package: "swift-log"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)

// swift-tools-version: 6.2
import PackageDescription

/// Strict settings for every target of ours (BUILD-NOTES.md §b).
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .strictMemorySafety(),
    .treatAllWarnings(as: .error),
]

let package = Package(
    name: "ToolCallKit",
    products: [
        .library(name: "ToolCallKit", targets: ["ToolCallKit"]),
        .executable(name: "toolcall", targets: ["toolcall"]),
        .executable(name: "toolcall-bench", targets: ["ToolCallBench"]),
        // The C library (`make lib`): libtoolcallkit.so, contract in include/toolcallkit.h.
        .library(name: "toolcallkit", type: .dynamic, targets: ["ToolCallKitC"]),
    ],
    targets: [
        .systemLibrary(
            name: "CPCRE2",
            pkgConfig: "libpcre2-8",
            providers: [.apt(["libpcre2-dev"]), .brew(["pcre2"])]
        ),
        .target(
            name: "ToolCallKit",
            dependencies: ["CPCRE2"],
            swiftSettings: strict
        ),
        .target(
            name: "ToolCallKitC",
            dependencies: ["ToolCallKit"],
            exclude: ["include", "toolcallkit.map"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "toolcall",
            dependencies: ["ToolCallKit"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "ToolCallBench",
            dependencies: ["ToolCallKit"],
            path: "Benchmarks/ToolCallBench",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "stream-weather",
            dependencies: ["ToolCallKit"],
            path: "Examples/StreamWeather",
            swiftSettings: strict
        ),
        // The libFuzzer target (`make fuzz`). It has no `main`: build it only with
        // `--product ToolCallFuzz` and `--sanitize fuzzer` (BUILD-NOTES.md §c).
        .executableTarget(
            name: "ToolCallFuzz",
            dependencies: ["ToolCallKit"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ToolCallKitTests",
            dependencies: ["ToolCallKit", "ToolCallKitC"],
            swiftSettings: strict + [.define("TOOLCALLKIT_INTERNAL_CHECKS")]
        ),
    ]
)

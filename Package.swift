// swift-tools-version: 6.2
import PackageDescription

/// Strict settings for every target of ours: warnings are errors, memory safety is checked.
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
        // The chunking verifier and the round-trip check, shared by the tests, the fuzz target
        // and the benchmark.
        .target(
            name: "ToolCallKitTestSupport",
            dependencies: ["ToolCallKit"],
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
            dependencies: ["ToolCallKit", "ToolCallKitTestSupport"],
            path: "Benchmarks/ToolCallBench",
            swiftSettings: strict
        ),
        // Every Swift snippet of README.md and docs/ is a file here, so the build compiles it
        // (ReadmeSnippetTests checks that each snippet matches its file byte for byte).
        .executableTarget(
            name: "readme-snippets",
            dependencies: ["ToolCallKit"],
            path: "Examples/ReadmeSnippets",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "stream-weather",
            dependencies: ["ToolCallKit"],
            path: "Examples/StreamWeather",
            swiftSettings: strict
        ),
        // The libFuzzer target (`make fuzz`). It has no `main`: build it only with
        // `--product ToolCallFuzz` and `--sanitize fuzzer` (see `make fuzz-build`).
        .executableTarget(
            name: "ToolCallFuzz",
            dependencies: ["ToolCallKit", "ToolCallKitTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ToolCallKitTests",
            dependencies: ["ToolCallKit", "ToolCallKitC", "ToolCallKitTestSupport"],
            swiftSettings: strict + [.define("TOOLCALLKIT_INTERNAL_CHECKS")]
        ),
    ]
)

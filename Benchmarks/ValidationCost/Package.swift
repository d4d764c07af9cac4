// swift-tools-version: 6.2
// A stand-alone measurement of SchemaValidator's cost per call (not part of the root package, so
// the library's build and tests do not carry it). Run: swift run -c release
import PackageDescription

/// The root package's identity is its folder's name (a clone may be named anything).
let rootName = String(Context.packageDirectory.split(separator: "/").dropLast(2).last ?? "ToolCallKit")

let package = Package(
    name: "ValidationCost",
    dependencies: [.package(path: "../..")],
    targets: [
        .executableTarget(
            name: "ValidationCost",
            dependencies: [.product(name: "ToolCallKit", package: rootName)]
        )
    ]
)

import Foundation

/// Notes a test writes for a reader who asks for them (counts, what a format refused): printed
/// only when `TOOLCALL_TEST_VERBOSE` is set (`make test VERBOSE=1`), so that the default output
/// of `make test` is failures and the summary.
enum TestLog {
    static let verbose = ProcessInfo.processInfo.environment["TOOLCALL_TEST_VERBOSE"].map { !$0.isEmpty && $0 != "0" } ?? false

    static func note(_ line: @autoclosure () -> String) {
        if verbose { print(line()) }
    }
}

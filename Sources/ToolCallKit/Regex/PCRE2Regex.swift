// ToolCallKit — PCRE2, wrapped once: a compiled pattern and a matcher that owns its match data.

internal import CPCRE2

/// An error from PCRE2: a pattern that does not compile, or a match that hit a limit.
public struct PCRE2Error: Error, CustomStringConvertible, Sendable, Equatable {
    /// PCRE2's error code (negative for match errors, positive for compile errors).
    public let code: Int32
    /// PCRE2's own message for the code.
    public let message: String
    /// For compile errors, the byte offset in the pattern where PCRE2 stopped.
    public let offset: Int?

    init(code: Int32, offset: Int? = nil) {
        self.code = code
        self.offset = offset
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = unsafe buffer.withUnsafeMutableBufferPointer { unsafe pcre2_get_error_message_8(code, $0.baseAddress, $0.count) }
        self.message = n > 0 ? String(decoding: buffer[0..<Int(n)], as: UTF8.self) : "PCRE2 error \(code)"
    }

    public var description: String {
        if let offset { return "\(message) at offset \(offset)" }
        return message
    }

    /// True when a match gave up at the match or depth limit.
    public var isLimit: Bool {
        code == PCRE2_ERROR_MATCHLIMIT || code == PCRE2_ERROR_DEPTHLIMIT || code == PCRE2_ERROR_HEAPLIMIT
            || code == PCRE2_ERROR_JIT_STACKLIMIT
    }
}

/// A compiled PCRE2 pattern: JIT-compiled (complete and hard-partial modes), with match and
/// depth limits, in byte mode unless ``Options/utf`` is set.
///
/// The compiled code is read-only and shared freely between threads. Matching needs a
/// ``PCRE2Matcher``, which owns the match data and belongs to one owner at a time
/// (pcre2api(3), MULTITHREADING). It is not used on the per-byte hot path of the decoder.
@safe public final class PCRE2Regex: @unchecked Sendable {
    /// Compile options.
    public struct Options: OptionSet, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// Letters match either case.
        public static let caseless = Options(rawValue: PCRE2_CASELESS)
        /// `.` matches newlines too.
        public static let dotAll = Options(rawValue: PCRE2_DOTALL)
        /// `^` and `$` match at line boundaries.
        public static let multiline = Options(rawValue: PCRE2_MULTILINE)
        /// Patterns and subjects are UTF-8 (invalid subjects are matched, not rejected).
        public static let utf = Options(rawValue: PCRE2_UTF | PCRE2_MATCH_INVALID_UTF)
        /// A match must start where the search starts (compiled in, so JIT matching serves it).
        public static let anchored = Options(rawValue: PCRE2_ANCHORED)
        /// `$` matches only at the very end, not before a final newline (as in ECMA-262).
        public static let dollarEndOnly = Options(rawValue: PCRE2_DOLLAR_ENDONLY)
        /// `\w`, `\d`, `\s`, `\b` and POSIX classes use Unicode properties (with ``utf``), as
        /// Python's `re` and `regex` do for text patterns.
        public static let ucp = Options(rawValue: PCRE2_UCP)
    }

    /// The pattern text.
    public let pattern: String
    /// The most backtracking steps one match may take.
    public let matchLimit: UInt32
    /// The deepest backtracking one match may reach (interpreter only; JIT uses its stack).
    public let depthLimit: UInt32
    let code: OpaquePointer
    let context: OpaquePointer?
    /// Whether JIT compilation succeeded (it may be unavailable on some platforms).
    public let isJIT: Bool

    /// Compiles `pattern`.
    ///
    /// - Parameters:
    ///   - pattern: the regular expression (PCRE2 syntax).
    ///   - options: compile options.
    ///   - matchLimit: the most steps a match may take before failing with a limit error.
    ///   - depthLimit: the deepest backtracking a match may reach.
    /// - Throws: ``PCRE2Error`` with PCRE2's message and the offset where compilation stopped.
    ///
    /// The corresponding C functions are `pcre2_compile` and `pcre2_jit_compile`.
    public init(_ pattern: String, options: Options = [], matchLimit: UInt32 = 1_000_000, depthLimit: UInt32 = 10_000)
        throws(PCRE2Error)
    {
        let bytes = Array(pattern.utf8)
        var error: Int32 = 0
        var offset = 0
        let compiled = unsafe bytes.withUnsafeBufferPointer {
            unsafe pcre2_compile_8($0.baseAddress, $0.count, options.rawValue, &error, &offset, nil)
        }
        guard let compiled = unsafe compiled else { throw PCRE2Error(code: error, offset: offset) }
        self.pattern = pattern
        self.matchLimit = matchLimit
        self.depthLimit = depthLimit
        unsafe self.code = compiled
        self.isJIT = unsafe pcre2_jit_compile_8(compiled, PCRE2_JIT_COMPLETE | PCRE2_JIT_PARTIAL_HARD) == 0
        let ctx = unsafe pcre2_match_context_create_8(nil)
        if let ctx = unsafe ctx {
            unsafe pcre2_set_match_limit_8(ctx, matchLimit)
            unsafe pcre2_set_depth_limit_8(ctx, depthLimit)
        }
        unsafe self.context = ctx
    }

    deinit {
        unsafe pcre2_match_context_free_8(context)
        unsafe pcre2_code_free_8(code)
    }

    /// The number of capture groups in the pattern.
    public var captureCount: Int {
        var n: UInt32 = 0
        _ = unsafe pcre2_pattern_info_8(code, UInt32(PCRE2_INFO_CAPTURECOUNT), &n)
        return Int(n)
    }

    /// The most characters (not bytes) a lookbehind of the pattern moves back; `\b`, `\B` and
    /// `\A` count as one. A nested lookbehind, or `\b` at the start of one, can reach further
    /// than this (pcre2api(3), PCRE2_INFO_MAXLOOKBEHIND).
    public var maxLookbehind: Int {
        var n: UInt32 = 0
        _ = unsafe pcre2_pattern_info_8(code, UInt32(PCRE2_INFO_MAXLOOKBEHIND), &n)
        return Int(n)
    }

    /// The named capture groups: name to group number.
    public var namedGroups: [String: Int] {
        var count: UInt32 = 0
        var size: UInt32 = 0
        _ = unsafe pcre2_pattern_info_8(code, UInt32(PCRE2_INFO_NAMECOUNT), &count)
        _ = unsafe pcre2_pattern_info_8(code, UInt32(PCRE2_INFO_NAMEENTRYSIZE), &size)
        guard count > 0, size > 2 else { return [:] }
        var table: UnsafePointer<UInt8>? = nil
        _ = unsafe pcre2_pattern_info_8(code, UInt32(PCRE2_INFO_NAMETABLE), &table)
        guard let table = unsafe table else { return [:] }
        var out: [String: Int] = [:]
        for k in 0..<Int(count) {
            // Each entry: the group number (two bytes, most significant first), then the
            // NUL-terminated name, padded to the entry size.
            let entry = unsafe table + k * Int(size)
            let number = Int(unsafe entry[0]) << 8 | Int(unsafe entry[1])
            var name: [UInt8] = []
            var i = 2
            while i < Int(size), unsafe entry[i] != 0 {
                name.append(unsafe entry[i])
                i += 1
            }
            out[String(decoding: name, as: UTF8.self)] = number
        }
        return out
    }

    /// A matcher for this pattern, with its own match data.
    public func makeMatcher() -> PCRE2Matcher { PCRE2Matcher(self, matchLimit: nil) }

    /// A matcher whose matches may take at most `matchLimit` steps (at most this pattern's
    /// own ``matchLimit``): for a caller that shares one budget of match work among many
    /// matches.
    public func makeMatcher(matchLimit: UInt32) -> PCRE2Matcher {
        PCRE2Matcher(self, matchLimit: min(matchLimit, self.matchLimit))
    }

    /// A matcher whose matches may take up to `matchLimit` steps, more than this pattern's own
    /// ``matchLimit`` if need be: for a caller that lets a match read further than usual and
    /// bounds its work by what it reads.
    public func makeMatcher(raisingLimitTo matchLimit: UInt32) -> PCRE2Matcher {
        PCRE2Matcher(self, matchLimit: max(matchLimit, self.matchLimit))
    }

    /// Convenience: whether `subject` contains a match (a fresh matcher each call).
    public func matches(_ subject: String) throws(PCRE2Error) -> Bool {
        let m = makeMatcher()
        if case .match = try m.match(Array(subject.utf8)) { return true }
        return false
    }
}

/// Matches one ``PCRE2Regex`` against subjects, owning the match data.
///
/// Not `Sendable` and not copyable: match data belongs to one owner at a time.
@safe public struct PCRE2Matcher: ~Copyable {
    /// The outcome of a match.
    public enum Result: Equatable, Sendable {
        /// A match; `groups[0]` is the whole match, unset groups are nil (byte ranges).
        case match(groups: [Range<Int>?])
        /// With partial matching: the subject ended inside a possible match that starts at `start`.
        case partial(start: Int)
        /// No match.
        case noMatch
    }

    private let regex: PCRE2Regex
    private let data: OpaquePointer
    /// This matcher's own match context, when its match limit is not the pattern's.
    private let context: OpaquePointer?
    /// The most steps one match may take.
    public let matchLimit: UInt32

    init(_ regex: PCRE2Regex, matchLimit: UInt32?) {
        self.regex = regex
        unsafe self.data = unsafe pcre2_match_data_create_from_pattern_8(regex.code, nil)!
        self.matchLimit = matchLimit ?? regex.matchLimit
        if let matchLimit, matchLimit != regex.matchLimit, let shared = unsafe regex.context,
            let own = unsafe pcre2_match_context_copy_8(shared)
        {
            unsafe pcre2_set_match_limit_8(own, matchLimit)
            unsafe self.context = own
        } else {
            unsafe self.context = nil
        }
    }

    deinit {
        unsafe pcre2_match_context_free_8(context)
        unsafe pcre2_match_data_free_8(data)
    }

    /// Matches `subject` (bytes) from `start`.
    ///
    /// - Parameters:
    ///   - subject: the bytes to search.
    ///   - start: the offset to start at.
    ///   - partial: report a hard partial match when the subject ends inside a possible match
    ///     (for scanning a stream chunk by chunk; in UTF mode, hold back an unfinished character first).
    ///   - notBOL: the subject's first byte is not the start of the text (`^` cannot match there).
    ///   - anchored: only a match that starts at `start` counts.
    ///   - notEmptyAtStart: an empty match at `start` does not count (other matches there, and
    ///     empty ones later, do).
    /// - Returns: the match, a partial match (its `start` is where the cut-off attempt began),
    ///   or no match.
    /// - Throws: ``PCRE2Error`` when the match or depth limit was hit, or on another match error.
    ///
    /// The corresponding C function is `pcre2_match`.
    public func match(
        _ subject: [UInt8], from start: Int = 0, partial: Bool = false, notBOL: Bool = false, anchored: Bool = false,
        notEmptyAtStart: Bool = false
    ) throws(PCRE2Error) -> Result {
        try unsafe subject.withUnsafeBufferPointer { buf throws(PCRE2Error) in
            try unsafe match(
                buf, from: start, partial: partial, notBOL: notBOL, anchored: anchored, notEmptyAtStart: notEmptyAtStart)
        }
    }

    /// ``match(_:from:partial:notBOL:anchored:notEmptyAtStart:)`` on bytes the caller holds
    /// (a slice of a larger buffer, without a copy). Offsets are relative to `subject`.
    public func match(
        _ subject: UnsafeBufferPointer<UInt8>, from start: Int = 0, partial: Bool = false, notBOL: Bool = false,
        anchored: Bool = false, notEmptyAtStart: Bool = false
    ) throws(PCRE2Error) -> Result {
        let options: UInt32 =
            (partial ? PCRE2_PARTIAL_HARD : 0) | (notBOL ? PCRE2_NOTBOL : 0) | (anchored ? PCRE2_ANCHORED : 0)
            | (notEmptyAtStart ? PCRE2_NOTEMPTY_ATSTART : 0)
        let rc = unsafe pcre2_match_8(
            regex.code, subject.baseAddress ?? UnsafePointer(bitPattern: 1), subject.count, start, options, data,
            context ?? regex.context)
        let ovector = unsafe pcre2_get_ovector_pointer_8(data)!
        if rc == PCRE2_ERROR_NOMATCH { return .noMatch }
        if rc == PCRE2_ERROR_PARTIAL { return .partial(start: unsafe ovector[0]) }
        if rc < 0 { throw PCRE2Error(code: rc) }
        let count = regex.captureCount + 1
        let unset = cpcre2_unset()
        var groups: [Range<Int>?] = []
        groups.reserveCapacity(count)
        for i in 0..<count {
            let lo = unsafe ovector[2 * i]
            let hi = unsafe ovector[2 * i + 1]
            groups.append(lo == unset || i >= Int(rc) && i > 0 ? nil : lo..<hi)
        }
        return .match(groups: groups)
    }
}

// ToolCallKit — loading a tokenizer.json from a path, within bounds (the CLI and the C library).

extension Tokenizer {
    /// The most bytes a tokenizer.json may hold: 512 MiB. The largest real ones are tens of MB
    /// (Gemma's is about 33 MB); the cap exists so that a path cannot make the loader read
    /// without end.
    public static let fileSizeLimit = 512 << 20

    /// Loads the tokenizer.json at `path`.
    ///
    /// A path is data someone handed over (a model folder, a configuration): the file must be
    /// a regular file, opened without blocking, so a FIFO or a device (`/dev/zero`) is refused
    /// without a byte read; a file larger than ``fileSizeLimit`` is refused by its size before
    /// it is read, and none is read past the limit (a file that grows while it is read is
    /// refused too). Then the bytes are loaded as ``init(json:source:)`` loads them, with
    /// `path` as the source.
    ///
    /// - Parameter path: the file's path.
    /// - Throws: ``TokenizerError`` whose ``TokenizerError/kind`` is `.missing` (no such
    ///   file), `.unreadable` (it cannot be opened or read, is not a regular file, or is too
    ///   large), `.tokenizerConfig` or `.invalid` (it is not a usable tokenizer.json).
    public init(contentsOfFile path: String) throws(TokenizerError) {
        let bytes: [UInt8]
        do {
            bytes = try FileBytes.read(path, limit: Self.fileSizeLimit)
        } catch {
            throw TokenizerError(source: path, message: error.reason, kind: error.missing ? .missing : .unreadable)
        }
        try self.init(json: bytes, source: path)
    }
}

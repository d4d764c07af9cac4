// ToolCallKit — what a name that is not a format most likely meant (the CLI's and the C
// library's messages for an unknown format).

extension ToolCallFormat {
    /// The format a name that is not a format's raw name most likely meant, and why.
    public struct NameSuggestion: Sendable, Equatable {
        /// The format to try.
        public let format: ToolCallFormat
        /// The phrase that explains it, ending before the format's name (`Qwen and Hermes
        /// models write`), or nil when the name is the format's in another case (`JSON`).
        public let who: String?
    }

    /// The format `name` most likely meant: the same name in another case, or a model family
    /// that a format declares it is written by (``FormatDefinition/familyNames``); nil when
    /// there is none. Both the command line and the C library (and so the Python package)
    /// build their message for an unknown format from this.
    public static func suggestion(forUnknownName name: String) -> NameSuggestion? {
        let key = name.lowercased()
        if let f = ToolCallFormat(name: key) { return NameSuggestion(format: f, who: nil) }
        for f in allCases {
            if let family = f.definition.familyNames, family.names.contains(key) {
                return NameSuggestion(format: f, who: family.who)
            }
        }
        return nil
    }
}

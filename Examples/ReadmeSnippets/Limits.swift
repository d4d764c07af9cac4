import ToolCallKit

/// Caps are `Limit`s: checked when made, so a decoder never meets an impossible one.
func cappedOptions(maxCallBytes: Int?) throws -> ToolCallDecoder.Options {
    var options = ToolCallDecoder.Options(idSeed: 7)
    options.maxCallBytes = try maxCallBytes.map { try Limit($0) } ?? .unlimited  // throws for 0 or Int.max
    options.maxDepth = try Limit(64)
    return options
}

/// A server may feed a late chunk after the end: it is a no-op, and `isFinished` says so.
func feedLate(_ decoder: inout ToolCallDecoder, _ chunk: [UInt8]) -> [ToolCallEvent] {
    if decoder.isFinished { return [] }
    return decoder.feed(chunk)
}

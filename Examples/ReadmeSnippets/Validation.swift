import ToolCallKit

/// A decoder that checks every call against its tool's schema. The schemas are compiled once
/// (a schema that cannot be applied throws here), and the tool set is shared by every decoder.
func validatingDecoder(tools: ToolSet) throws -> ToolCallDecoder {
    let checked = try tools.compilingValidators()
    return ToolCallDecoder(format: .json, tools: checked, options: .init(validate: true, wholeCalls: true))
}

/// The violations of a call parsed elsewhere, one line each ("/unit: expected one of [...], found ...").
func violations(of call: ToolCall, in tools: ToolSet) throws -> String {
    let checked = try tools.compilingValidators()
    let found = try checked.validator(for: call.name)?.validate(call.arguments) ?? []
    return found.map(\.description).joined(separator: "\n")
}

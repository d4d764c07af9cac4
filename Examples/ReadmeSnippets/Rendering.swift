import ToolCallKit

/// Earlier calls back into a prompt: GLM-4.5's wire text for one call, after some content.
func renderedForPrompt() throws -> [UInt8] {
    let calls = [RenderedCall(name: "get_weather", arguments: .object([("city", .string("Paris"))]))]
    let bytes = try ToolCallFormat.glm4.render(calls, text: "Let me check.")
    return bytes
}

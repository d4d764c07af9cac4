import Foundation
import Testing
@testable import ToolCallKit

/// A model folder under `Fixtures/models/`, its expected format (the model variant when the
/// folder shows one: `infer` names its base as the format and the variant beside it), and
/// evidence it must show.
struct InferenceCase: CustomTestStringConvertible, Sendable {
    var folder: String
    var format: ToolCallFormat?
    var evidence: [String] = []
    var testDescription: String { folder }
}

@Suite("Format inference from model folders")
struct FormatInferenceTests {
    static let cases: [InferenceCase] = [
        // The real folders.
        InferenceCase(folder: "Qwen3-0.6B", format: .json, evidence: ["<tool_call> (Hermes JSON)"]),
        InferenceCase(folder: "Qwen3-30B-A3B", format: .json, evidence: ["family's default", "ambiguous: Qwen3-Coder"]),
        InferenceCase(folder: "LFM2.5-8B-A1B", format: .lfm2, evidence: ["quoted with a bare '"]),
        InferenceCase(folder: "Qwen3-Coder-vllm-example", format: .xmlFunction),
        InferenceCase(folder: "GLM-4.5", format: .glm45LlamaCpp, evidence: ["the name's newline trimmed"]),
        InferenceCase(folder: "GLM-4.6", format: .glm4, evidence: ["<arg_key>"]),
        InferenceCase(folder: "GLM-4.7-Flash", format: .glm47, evidence: ["</arg_key><arg_value>"]),
        InferenceCase(folder: "Laguna-XS.2", format: .poolsideV1, evidence: ["Laguna's <assistant> turns"]),
        InferenceCase(folder: "Laguna-XS-2.1", format: .poolsideV1, evidence: ["Laguna's <assistant> turns"]),
        InferenceCase(folder: "Ling-3.0-flash", format: .ling3, evidence: ["<role>ASSISTANT</role> turns"]),
        InferenceCase(folder: "MiniCPM5-1B", format: .minicpm5, evidence: ["<![CDATA["]),
        InferenceCase(folder: "Muse-Glimmer-30B", format: .museGlimmer, evidence: ["ATEM calls"]),
        InferenceCase(folder: "Qwen3.5-4B", format: .xmlFunction),
        InferenceCase(folder: "ByteDance-Seed-OSS", format: .seedOss, evidence: ["<seed:tool_call>"]),
        InferenceCase(folder: "DeepSeek-V4-Flash", format: .deepseekV4, evidence: ["tool_calls wrapper → deepseek_v32 (model variant deepseek_v4)"]),
        InferenceCase(folder: "mistralai-Mistral-Small-3.1-24B-Instruct-2503", format: .mistral31, evidence: ["[TOOL_CALLS] ["]),
        InferenceCase(folder: "functiongemma-270m-it-finetune-gemma-teacher", format: .gemma, evidence: ["<start_function_call>"]),
        InferenceCase(folder: "gemma-4", format: .gemma4),
        InferenceCase(folder: "Kimi-K2-Thinking", format: .kimiK2),
        InferenceCase(folder: "MiniMax-M2", format: .minimaxM2),
        InferenceCase(folder: "Mistral-Small-3.2-24B-Instruct-2506", format: .mistral, evidence: ["with [ARGS]"]),
        InferenceCase(folder: "Llama-3.2-3B-Instruct", format: .llama3),
        InferenceCase(folder: "Llama-2-7b-hf", format: nil, evidence: ["Llama 2 / OpenLLaMA"]),
        InferenceCase(folder: "DeepSeek-V3.1", format: .deepseekV31, evidence: ["<｜tool▁sep｜>{json}"]),
        InferenceCase(folder: "deepseek-ai-DeepSeek-V3.2", format: .deepseekV32, evidence: ["DSML"]),
        InferenceCase(folder: "deepseek-ai-DeepSeek-R1-Distill-Llama-8B", format: .deepseekV3, evidence: ["```json fence"]),
        InferenceCase(folder: "ibm-granite-granite-3.3-2B-Instruct", format: .granite, evidence: ["<|tool_call|>"]),
        InferenceCase(folder: "CohereForAI-c4ai-command-r7b-12-2024-tool_use", format: .cohere, evidence: ["<|START_ACTION|>"]),
        InferenceCase(folder: "Kimi-K3", format: .kimiK3, evidence: ["Kimi K3 blocks"]),
        // Our own, one rule each.
        InferenceCase(folder: "own-qwen3-coder-moe", format: .xmlFunction, evidence: ["conflict: config.json suggests json"]),
        InferenceCase(folder: "own-llama31-hermes", format: .json, evidence: ["conflict: config.json suggests llama3"]),
        InferenceCase(folder: "own-llama3-config-only", format: .llama3, evidence: ["Llama 3 default", "ambiguous"]),
        InferenceCase(folder: "own-openllama", format: nil),
        InferenceCase(folder: "own-gemma3-plain", format: nil, evidence: ["plain Gemma"]),
        InferenceCase(folder: "own-mistral-json-list", format: .mistral, evidence: ["JSON-list syntax"]),
        InferenceCase(folder: "own-kimi-k2-original", format: .kimiK2, evidence: ["<|im_middle|>"]),
        InferenceCase(folder: "own-lfm2-tokens-only", format: .lfm2, evidence: ["token <|tool_call_start|>"]),
        InferenceCase(folder: "own-nemotron-toolcall", format: .nemotron, evidence: ["<TOOLCALL>", "conflict", "Nemotron Nano v2 shares"]),
        InferenceCase(folder: "own-llama4-pythonic", format: .pythonic, evidence: ["<|python_start|>", "Llama 4 default"]),
        InferenceCase(folder: "own-phi4-mini-functools", format: .phi4Mini, evidence: ["functools"]),
        InferenceCase(folder: "own-phi4-mini-tokens", format: .phi4Mini, evidence: ["token <|/tool_call|>"]),
        InferenceCase(folder: "own-gpt-oss-harmony", format: .harmony, evidence: ["Harmony messages"]),
        InferenceCase(folder: "own-gpt-oss-template", format: .harmony, evidence: ["Harmony messages", "model_type \"gpt_oss\" → harmony"]),
        InferenceCase(folder: "own-gpt-oss-tokens-only", format: .harmony, evidence: ["token <|call|> → harmony"]),
        InferenceCase(folder: "own-gpt-oss-config-only", format: .harmony, evidence: ["model_type \"gpt_oss\" → harmony"]),
        InferenceCase(folder: "own-declared-vs-template", format: .xmlFunction, evidence: ["declares xml_function", "conflict"]),
        InferenceCase(folder: "own-invalid-config", format: .json, evidence: ["config.json: not valid JSON"]),
        InferenceCase(folder: "own-unknown-declaration", format: nil, evidence: ["not a parser name known here"]),
        InferenceCase(folder: "own-template-list", format: .glm47, evidence: ["\"tool_use\""]),
        InferenceCase(folder: "own-chat-template-json", format: .minimaxM2, evidence: ["chat_template.json"]),
        InferenceCase(folder: "own-special-tokens-map", format: .llama3, evidence: ["special_tokens_map.json"]),
        InferenceCase(folder: "own-empty", format: nil, evidence: ["no signal names a tool-call format"]),
        InferenceCase(folder: "own-seed-oss", format: .seedOss, evidence: ["<seed:tool_call>", "model_type \"seed_oss\""]),
        InferenceCase(folder: "own-deepseek-v31-on-v3-arch", format: .deepseekV31, evidence: ["the chat template decides"]),
        InferenceCase(folder: "own-kimi-on-deepseek-arch", format: .kimiK2, evidence: ["<|tool_calls_section_begin|>"]),
        InferenceCase(folder: "own-deepseek-v3-config-only", format: nil, evidence: ["no format by itself"]),
        InferenceCase(folder: "own-deepseek-v32-config-only", format: .deepseekV32, evidence: ["model_type \"deepseek_v32\""]),
        InferenceCase(folder: "own-kimi-k3-config", format: .kimiK3, evidence: ["model_type \"kimi_k3\""]),
        InferenceCase(folder: "own-minimax-m3-config", format: .minimaxM3, evidence: ["model_type \"minimax_m3\""]),
        InferenceCase(folder: "own-minimax-m3-template", format: .minimaxM3, evidence: ["namespace token", "conflict: config.json suggests minimax_m2"]),
    ]

    @Test("infers the format and shows the evidence", arguments: cases)
    func infer(_ c: InferenceCase) throws {
        let dir = FixturePaths.root.appendingPathComponent("models/\(c.folder)").path
        let result = try ToolCallFormat.infer(modelDirectory: dir)
        #expect(result.modelFormat == c.format, "evidence: \(result.evidence)")
        // The format is always a base format; a variant is named beside it.
        let base = c.format?.variantOf ?? c.format
        #expect(result.format == base, "evidence: \(result.evidence)")
        #expect(result.variant == (c.format?.variantOf == nil ? nil : c.format))
        #expect(result.jsonLine.hasPrefix("{\"format\":" + (base.map { "\"\($0.rawValue)\"" } ?? "null")
            + (result.variant.map { ",\"variant\":\"\($0.rawValue)\"" } ?? "") + ",\"evidence\":"), "\(result.jsonLine)")
        for fragment in c.evidence {
            #expect(result.evidence.contains { $0.contains(fragment) }, "no evidence with \(fragment.debugDescription): \(result.evidence)")
        }
        #expect(!result.jsonLine.contains("\n"))
    }

    @Test("a declared base format and a template showing its model variant agree: the variant refines it")
    func declarationRefinedByTemplate() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tck-infer-refine-\(ProcessInfo.processInfo.processIdentifier)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let template = "{% for tc in message.tool_calls %}<｜DSML｜tool_calls>\n<｜DSML｜invoke name=\"{{ tc.function.name }}\">{% endfor %}"
        let config = JSONValue.object([(key: "tool_parser_type", value: .string("deepseek_v32")), (key: "chat_template", value: .string(template))])
        try Data(config.jsonText.utf8).write(to: URL(fileURLWithPath: dir + "/tokenizer_config.json"))
        let result = try ToolCallFormat.infer(modelDirectory: dir)
        #expect(result.format == .deepseekV32 && result.variant == .deepseekV4, "\(result.evidence)")
        #expect(result.evidence.contains { $0.contains("shows the model variant") }, "\(result.evidence)")
        #expect(!result.evidence.contains { $0.contains("conflict") }, "\(result.evidence)")
        #expect(result.jsonLine.hasPrefix(#"{"format":"deepseek_v32","variant":"deepseek_v4","evidence":"#))
    }

    @Test("a variant given as the format is split into its base and itself")
    func variantSplit() {
        let r = FormatInference(format: .glm47, evidence: [])
        #expect(r.format == .glm4 && r.variant == .glm47 && r.modelFormat == .glm47)
        let b = FormatInference(format: .glm4, evidence: [])
        #expect(b.format == .glm4 && b.variant == nil && b.modelFormat == .glm4)
        #expect(FormatInference(format: nil, evidence: []).modelFormat == nil)
    }

    @Test("a path that is not a readable folder is an error")
    func notAFolder() {
        #expect(throws: FormatInferenceError.self) { try ToolCallFormat.infer(modelDirectory: "/nonexistent/model") }
    }
}

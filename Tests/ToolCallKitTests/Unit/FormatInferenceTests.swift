import Foundation
import Testing
@testable import ToolCallKit

/// A model folder under `Fixtures/models/`, its expected format, and evidence it must show.
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
        InferenceCase(folder: "LFM2.5-8B-A1B", format: .lfm2),
        InferenceCase(folder: "Qwen3-Coder-vllm-example", format: .xmlFunction),
        InferenceCase(folder: "GLM-4.5", format: .glm4),
        InferenceCase(folder: "functiongemma-270m-it-finetune-gemma-teacher", format: .gemma, evidence: ["<start_function_call>"]),
        InferenceCase(folder: "gemma-4", format: .gemma4),
        InferenceCase(folder: "Kimi-K2-Thinking", format: .kimiK2),
        InferenceCase(folder: "MiniMax-M2", format: .minimaxM2),
        InferenceCase(folder: "Mistral-Small-3.2-24B-Instruct-2506", format: .mistral, evidence: ["with [ARGS]"]),
        InferenceCase(folder: "Llama-3.2-3B-Instruct", format: .llama3),
        InferenceCase(folder: "Llama-2-7b-hf", format: nil, evidence: ["Llama 2 / OpenLLaMA"]),
        InferenceCase(folder: "DeepSeek-V3.1", format: nil, evidence: ["DeepSeek", "none of the ten"]),
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
        InferenceCase(folder: "own-nemotron-toolcall", format: nil, evidence: ["Nemotron <TOOLCALL>", "conflict"]),
        InferenceCase(folder: "own-gpt-oss-harmony", format: nil, evidence: ["Harmony"]),
        InferenceCase(folder: "own-declared-vs-template", format: .xmlFunction, evidence: ["declares xml_function", "conflict"]),
        InferenceCase(folder: "own-invalid-config", format: .json, evidence: ["config.json: not valid JSON"]),
        InferenceCase(folder: "own-unknown-declaration", format: nil, evidence: ["not a parser name known here"]),
        InferenceCase(folder: "own-template-list", format: .glm4, evidence: ["\"tool_use\""]),
        InferenceCase(folder: "own-chat-template-json", format: .minimaxM2, evidence: ["chat_template.json"]),
        InferenceCase(folder: "own-special-tokens-map", format: .llama3, evidence: ["special_tokens_map.json"]),
        InferenceCase(folder: "own-empty", format: nil, evidence: ["no signal names a tool-call format"]),
        InferenceCase(folder: "own-kimi-k3-config", format: .kimiK3, evidence: ["model_type \"kimi_k3\""]),
        InferenceCase(folder: "own-minimax-m3-config", format: .minimaxM3, evidence: ["model_type \"minimax_m3\""]),
        InferenceCase(folder: "own-minimax-m3-template", format: .minimaxM3, evidence: ["namespace token", "conflict: config.json suggests minimax_m2"]),
    ]

    @Test("infers the format and shows the evidence", arguments: cases)
    func infer(_ c: InferenceCase) throws {
        let dir = FixturePaths.root.appendingPathComponent("models/\(c.folder)").path
        let result = try ToolCallFormat.infer(modelDirectory: dir)
        #expect(result.format == c.format, "evidence: \(result.evidence)")
        for fragment in c.evidence {
            #expect(result.evidence.contains { $0.contains(fragment) }, "no evidence with \(fragment.debugDescription): \(result.evidence)")
        }
        #expect(!result.jsonLine.contains("\n"))
    }

    @Test("a path that is not a readable folder is an error")
    func notAFolder() {
        #expect(throws: FormatInferenceError.self) { try ToolCallFormat.infer(modelDirectory: "/nonexistent/model") }
    }
}

import ToolCallKit

/// The format of a Hugging Face model folder, with the evidence (nil: none was found).
func format(ofModel folder: String) throws -> ToolCallFormat? {
    let inferred = try ToolCallFormat.infer(modelDirectory: folder)
    for line in inferred.evidence { print("evidence:", line) }
    return inferred.format
}

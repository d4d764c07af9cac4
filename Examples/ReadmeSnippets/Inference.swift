import ToolCallKit

/// The format to decode a Hugging Face model folder's output with (the model variant its
/// template shows, else the base format), with the evidence (nil: none was found).
func format(ofModel folder: String) throws -> ToolCallFormat? {
    let inferred = try ToolCallFormat.infer(modelDirectory: folder)
    for line in inferred.evidence { print("evidence:", line) }
    return inferred.modelFormat
}

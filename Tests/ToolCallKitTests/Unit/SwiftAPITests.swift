import Testing
@testable import ToolCallKit
import ToolCallKitTestSupport

@Suite("Swift API: async adapter and typed arguments")
struct SwiftAPITests {
    struct Weather: Decodable, Equatable {
        struct Place: Decodable, Equatable {
            let city: String
            let country: String?
        }
        let place: Place
        let days: Int
        let units: [String]
    }

    /// Chunks delivered asynchronously, like a network body.
    static func chunks(_ text: String, size: Int) -> AsyncStream<[UInt8]> {
        let bytes = Array(text.utf8)
        return AsyncStream { continuation in
            var i = 0
            while i < bytes.count {
                continuation.yield(Array(bytes[i..<min(bytes.count, i + size)]))
                i += size
            }
            continuation.finish()
        }
    }

    @Test("the async adapter yields the same events as feeding by hand", arguments: [1, 5, 1000])
    func asyncAdapter(size: Int) async throws {
        let input = "Hi <tool_call>{\"name\": \"get_weather\", \"arguments\": {\"place\": {\"city\": \"Oslo\"}, \"days\": 3, \"units\": [\"C\"]}}</tool_call> bye"
        var events: [ToolCallEvent] = []
        for try await e in Self.chunks(input, size: size).toolCallEvents(format: .json, options: .init(rawSpans: true, idSeed: 4)) {
            events.append(e)
        }
        var d = ToolCallDecoder(format: .json, options: .init(rawSpans: true, idSeed: 4))
        let byHand = d.feed(Array(input.utf8)) + d.finish()
        let verifier = ChunkingVerifier(format: .json, options: .init(rawSpans: true, idSeed: 4))
        let bytes = Array(input.utf8)
        #expect(verifier.normalize(events, input: bytes, label: "async") == verifier.normalize(byHand, input: bytes, label: "hand"))
        guard case .end(let calls, _, _)? = events.last else {
            Issue.record("no end event")
            return
        }
        #expect(calls == 1)
    }

    @Test("decodeArguments(as:) maps the arguments onto a struct")
    func decodes() throws {
        let call = ToolCall(index: 0, id: "c", name: "get_weather", arguments: try JSONValue.parse(
            #"{"place": {"city": "Oslo", "country": "NO"}, "days": 3, "units": ["C", "F"]}"#))
        let w = try call.decodeArguments(as: Weather.self)
        #expect(w == Weather(place: .init(city: "Oslo", country: "NO"), days: 3, units: ["C", "F"]))
    }

    @Test("a failing decode names the key path", arguments: [
        (#"{"place": {"city": 7}, "days": 3, "units": []}"#, "/place/city"),
        (#"{"place": {"city": "Oslo"}, "units": []}"#, "/days"),
        (#"{"place": {"city": "Oslo"}, "days": 3, "units": ["C", 2]}"#, "/units/1"),
        (#"{"place": {"city": "Oslo"}, "days": "three", "units": []}"#, "/days"),
    ])
    func failingDecode(arguments: String, path: String) throws {
        let call = ToolCall(index: 0, id: "c", name: "get_weather", arguments: try JSONValue.parse(arguments))
        do {
            _ = try call.decodeArguments(as: Weather.self)
            Issue.record("decoded \(arguments)")
        } catch {
            #expect(error.path == path, "\(error)")
            #expect(!error.message.isEmpty)
        }
    }
}

// ToolCallKitC — the exported C functions of libtoolcallkit.so (contract: include/toolcallkit.h).
//
// Each function is a thin shell: it checks its pointers, turns C buffers into Swift views and
// hands over to `CDecoder`, `DecoderConfig` or `ToolCallFormat.infer`. None of them traps on
// misuse the header describes; they return an error code instead.

import Glibc
import ToolCallKit

/// The ABI version (`TCK_ABI_VERSION` in the header).
let abiVersion: UInt32 = 1

@_cdecl("tck_abi_version")
public func tck_abi_version() -> UInt32 { abiVersion }

@_cdecl("tck_decoder_new")
public func tck_decoder_new(
    _ config: UnsafePointer<CChar>?, _ len: Int, _ err: UnsafeMutablePointer<CChar>?, _ errCap: Int
) -> OpaquePointer? {
    guard let config = unsafe config else {
        unsafe copyMessage("config_json is NULL", to: err, capacity: errCap)
        return nil
    }
    let bytes = unsafe UnsafeRawBufferPointer(start: config, count: len)
    do {
        let parsed = try unsafe DecoderConfig(json: bytes)
        let decoder = try CDecoder(config: parsed)
        return unsafe OpaquePointer(Unmanaged.passRetained(decoder).toOpaque())
    } catch {
        unsafe copyMessage(error.message, to: err, capacity: errCap)
        return nil
    }
}

@_cdecl("tck_feed")
public func tck_feed(_ d: OpaquePointer?, _ bytes: UnsafePointer<UInt8>?, _ len: Int) -> Int32 {
    guard let decoder = unsafe object(d) else { return TCK.argument }
    if len == 0 { return unsafe decoder.session.feed(UnsafeBufferPointer(start: nil, count: 0)) }
    guard let bytes = unsafe bytes else { return decoder.session.misuse("tck_feed: bytes is NULL with len > 0") }
    return unsafe decoder.session.feed(UnsafeBufferPointer(start: bytes, count: len))
}

@_cdecl("tck_feed_tokens")
public func tck_feed_tokens(_ d: OpaquePointer?, _ ids: UnsafePointer<UInt32>?, _ n: Int) -> Int32 {
    guard let decoder = unsafe object(d) else { return TCK.argument }
    if n == 0 { return unsafe decoder.session.feedTokens(UnsafeBufferPointer(start: nil, count: 0)) }
    guard let ids = unsafe ids else { return decoder.session.misuse("tck_feed_tokens: ids is NULL with n > 0") }
    return unsafe decoder.session.feedTokens(UnsafeBufferPointer(start: ids, count: n))
}

@_cdecl("tck_finish")
public func tck_finish(_ d: OpaquePointer?) -> Int32 {
    guard let decoder = unsafe object(d) else { return TCK.argument }
    return decoder.session.finish()
}

@_cdecl("tck_events")
public func tck_events(
    _ d: OpaquePointer?, _ lines: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, _ len: UnsafeMutablePointer<Int>?
) -> Int32 {
    guard let decoder = unsafe object(d) else { return TCK.argument }
    guard let lines = unsafe lines, let len = unsafe len else {
        return decoder.session.misuse("tck_events: lines or len is NULL")
    }
    let (start, count, n) = unsafe decoder.session.takeLines()
    unsafe lines.pointee = start
    unsafe len.pointee = count
    return n
}

@_cdecl("tck_feed_events")
public func tck_feed_events(
    _ d: OpaquePointer?, _ bytes: UnsafePointer<UInt8>?, _ len: Int,
    _ lines: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, _ linesLen: UnsafeMutablePointer<Int>?
) -> Int32 {
    guard let decoder = unsafe object(d) else { return TCK.argument }
    guard let lines = unsafe lines, let linesLen = unsafe linesLen else {
        return decoder.session.misuse("tck_feed_events: lines or len is NULL")
    }
    let fed: Int32
    if len == 0 {
        fed = unsafe decoder.session.feed(UnsafeBufferPointer(start: nil, count: 0))
    } else if let bytes = unsafe bytes {
        fed = unsafe decoder.session.feed(UnsafeBufferPointer(start: bytes, count: len))
    } else {
        return decoder.session.misuse("tck_feed_events: bytes is NULL with len > 0")
    }
    guard fed >= 0 else { return fed }
    let (start, count, n) = unsafe decoder.session.takeLines()
    unsafe lines.pointee = start
    unsafe linesLen.pointee = count
    return n
}

@_cdecl("tck_diagnostics")
public func tck_diagnostics(
    _ d: OpaquePointer?, _ lines: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, _ len: UnsafeMutablePointer<Int>?
) -> Int32 {
    guard let decoder = unsafe object(d) else { return TCK.argument }
    guard let lines = unsafe lines, let len = unsafe len else {
        return decoder.session.misuse("tck_diagnostics: lines or len is NULL")
    }
    let (start, count, n) = unsafe decoder.session.takeDiagnostics()
    unsafe lines.pointee = start
    unsafe len.pointee = count
    return n
}

/// The message `tck_last_error(NULL)` returns.
private nonisolated(unsafe) let nullDecoderMessage: UnsafePointer<CChar> = unsafe UnsafePointer(
    strdup("tck_last_error: the decoder is NULL (tck_decoder_new refused the config: see its err buffer)")!)

@_cdecl("tck_last_error")
public func tck_last_error(_ d: OpaquePointer?) -> UnsafePointer<CChar> {
    guard let decoder = unsafe object(d) else { return unsafe nullDecoderMessage }
    return unsafe decoder.session.lastErrorPointer
}

@_cdecl("tck_decoder_free")
public func tck_decoder_free(_ d: OpaquePointer?) {
    guard let d = unsafe d else { return }
    unsafe Unmanaged<CDecoder>.fromOpaque(UnsafeRawPointer(d)).release()
}

@_cdecl("tck_infer")
public func tck_infer(_ dir: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<CChar>?, _ cap: Int) -> Int32 {
    guard let dir = unsafe dir else {
        unsafe copyMessage("tck_infer: dir is NULL", to: out, capacity: cap)
        return TCK.argument
    }
    let path = unsafe String(cString: dir)
    do {
        let line = try ToolCallFormat.infer(modelDirectory: path).jsonLine
        unsafe copyMessage(line, to: out, capacity: cap)
        return Int32(clamping: line.utf8.count + 1)
    } catch {
        unsafe copyMessage("infer: \(error.message)", to: out, capacity: cap)
        return TCK.io
    }
}

/// A constrained-decoding grammar (docs/grammar.md). `config` is a JSON object: `format`,
/// `tools` (the array), `tool_choice`, `parallel_tool_calls`, `target` ("xgrammar", "lark",
/// "gbnf"), `reasoning`, `reasoning_open`, `tokenizer` (a tokenizer.json whose special tokens
/// name markers). Writes `{"grammar": TEXT, "lazy": bool, "triggers": [...], "report": [...]}`
/// NUL-terminated into `out` and returns the size needed (larger than `cap`: call again), or
/// TCK_E_ARGUMENT with the message in `out`.
@_cdecl("tck_grammar")
public func tck_grammar(_ config: UnsafePointer<UInt8>?, _ len: Int, _ out: UnsafeMutablePointer<CChar>?, _ cap: Int) -> Int32 {
    guard let config = unsafe config else {
        unsafe copyMessage("tck_grammar: config is NULL", to: out, capacity: cap)
        return TCK.argument
    }
    let bytes = unsafe Array(UnsafeBufferPointer(start: config, count: max(0, len)))
    do throws(DecoderConfig.Problem) {
        let answer = try GrammarRequest(json: bytes).answer()
        unsafe copyMessage(answer, to: out, capacity: cap)
        return Int32(clamping: answer.utf8.count + 1)
    } catch {
        unsafe copyMessage("tck_grammar: \(error.message)", to: out, capacity: cap)
        return TCK.argument
    }
}

// MARK: - Helpers

/// The decoder behind a handle, or nil for NULL.
private func object(_ d: OpaquePointer?) -> CDecoder? {
    guard let d = unsafe d else { return nil }
    return unsafe Unmanaged<CDecoder>.fromOpaque(UnsafeRawPointer(d)).takeUnretainedValue()
}

/// Writes `message` NUL-terminated into a caller's buffer of `capacity` bytes, cut at a
/// character boundary when it does not fit.
private func copyMessage(_ message: String, to buffer: UnsafeMutablePointer<CChar>?, capacity: Int) {
    guard let buffer = unsafe buffer, capacity > 0 else { return }
    var bytes = Array(message.utf8)
    if bytes.count > capacity - 1 {
        var end = capacity - 1
        // Do not end inside a UTF-8 sequence: back up over continuation bytes and their lead.
        while end > 0 && bytes[end] & 0xC0 == 0x80 { end -= 1 }
        bytes.removeSubrange(end...)
    }
    for (i, b) in bytes.enumerated() { unsafe buffer[i] = CChar(bitPattern: b) }
    unsafe buffer[bytes.count] = 0
}

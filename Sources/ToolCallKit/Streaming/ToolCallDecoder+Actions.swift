// ToolCallKit — the decoder, applying a grammar's actions: starts, deltas, accepted and rejected calls, ids and authorization.

/// Why a call is refused when it starts (``ToolCallDecoder/refusal``).
enum Refusal {
    static let undeclared: UInt8 = 0
    static let notChosen: UInt8 = 1
    static let parallel: UInt8 = 2
}

extension ToolCallDecoder {
    /// Applies what a grammar that owns the stream reported.
    mutating func applyStream() {
        for item in streamActions {
            switch item {
            case .action(let action):
                apply(action)
            case .reasoning(let end):
                guard end > cut else { continue }
                events.append(.reasoning(EventText(window.slice(cut..<end)), raw: setup.options.rawSpans ? window.bytes(cut..<end) : nil))
                cut = end
            }
        }
        streamActions.removeAll(keepingCapacity: true)
    }

    mutating func apply() {
        for action in actions { apply(action) }
    }

    mutating func apply(_ action: GrammarAction) {
        switch action {
        case .start(let name, let proposedID):
            if let tools, !tools.declares(name) {
                refusal = Refusal.undeclared
                current = .undeclared(name: name)
            } else if !setup.options.toolChoice.allows(name) {
                refusal = Refusal.notChosen
                current = .undeclared(name: name)
            } else if !setup.options.parallelToolCalls && accepted > 0 {
                refusal = Refusal.parallel
                current = .undeclared(name: name)
            } else if wholeCalls {
                // Announced only once accepted; the index is taken then, so the indexes a
                // client sees have no gaps.
                current = .started(index: -1, id: ids.id(style: format.definition.ids, proposed: proposedID), name: name)
                heldArguments.removeAll(keepingCapacity: false)
            } else {
                let id = ids.id(style: format.definition.ids, proposed: proposedID)
                current = .started(index: nextIndex, id: id, name: name)
                events.append(.toolCallStart(index: nextIndex, id: id, name: name))
                nextIndex += 1
            }
        case .delta(let fragment):
            if case .started(let index, _, _) = current, !fragment.isEmpty {
                if wholeCalls {
                    // From the fragment's own bytes: `utf8` would make an array per delta.
                    unsafe fragment.withUnsafeBytes { unsafe heldArguments.append(contentsOf: $0) }
                } else {
                    events.append(.toolCallDelta(index: index, arguments: fragment))
                }
            }
        case .accept(let arguments, let end):
            accept(arguments, end: end)
        case .reject(let reason, let detail, let end):
            // A rejection accounts for bytes: with no call open and nothing since the last
            // event (a call list cut off right where the next start marker begins), there
            // is nothing to reject.
            if case .none = current, end <= cut { return }
            reject(reason, detail: detail, end: end)
        case .markup(let end):
            emitMarkup(upTo: end)
        case .text(let end):
            emitText(upTo: end)
        case .reasoning(let end):
            if setup.options.reasoning { emitFramedReasoning(upTo: end) } else { emitText(upTo: end) }
        }
    }

    mutating func accept(_ arguments: CanonicalJSON, end: Int) {
        switch current {
        case .none:
            // A grammar always names a call before accepting it; treat a slip as malformed.
            reject(.malformed, detail: "call without a name", end: end)
        case .undeclared(let name):
            current = .none
            let raw = window.bytes(cut..<end)
            cut = end
            rejectedCount += 1
            let (reason, detail) = refusalReason(name)
            events.append(.rejected(RejectedToolCall(reason: reason, format: format, raw: raw, detail: detail, name: name)))
        case .started(var index, let id, let name):
            if let failure = validation?.validationFailure(name: name, arguments: arguments) {
                reject(.invalidArguments, detail: failure, end: end)
                return
            }
            current = .none
            // The call's input is copied only when raw spans were asked for: otherwise the
            // accepted call holds its arguments' text and nothing else.
            let raw = setup.options.rawSpans ? window.bytes(cut..<end) : nil
            cut = end
            accepted += 1
            if wholeCalls {
                index = nextIndex
                nextIndex += 1
                events.append(.toolCallStart(index: index, id: id, name: name))
                events.append(.toolCallDelta(index: index, arguments: EventText(utf8: heldArguments)))
                heldArguments = []
            }
            events.append(
                .toolCall(
                    ToolCall(
                        index: index, id: id, name: name, canonicalArguments: arguments, raw: raw)))
        }
    }

    /// The reason and detail of a call refused at its start (``refusal``).
    func refusalReason(_ name: String) -> (RejectedToolCall.Reason, String) {
        switch refusal {
        case Refusal.notChosen:
            return (.toolNotChosen, "tool_choice \(setup.options.toolChoice) does not allow \"\(name)\"")
        case Refusal.parallel:
            return (.parallelToolCall, "parallel_tool_calls is false and a call was already accepted")
        default:
            return (.undeclaredTool, "\"\(name)\" is not a declared tool")
        }
    }

    mutating func reject(_ reason: RejectedToolCall.Reason, detail: String, end: Int) {
        let raw = window.bytes(cut..<end)
        cut = end
        rejectedCount += 1
        var r = RejectedToolCall(reason: reason, format: format, raw: raw, detail: detail)
        switch current {
        case .none: break
        case .undeclared(let name):
            r.name = name
            // A refused call that is also malformed or cut off is reported as refused: the
            // grammar's verdict on its bytes matters less than that it was never allowed.
            if refusal != Refusal.undeclared { (r.reason, r.detail) = refusalReason(name) }
        case .started(let index, let id, let name):
            r.name = name
            if !wholeCalls {
                // A call announced with tool_call_start ends with its index and id; with whole
                // calls it was never announced, so the rejection names only the tool.
                r.index = index
                r.id = id
            } else {
                heldArguments = []
            }
        }
        current = .none
        events.append(.rejected(r))
    }

    /// Ends a frame at `at`: a call still open is rejected, unaccounted bytes become markup.
    mutating func closeFrame(at: Int, reason: RejectedToolCall.Reason) {
        switch current {
        case .none:
            if at > cut { emitMarkup(upTo: at) }
        case .started, .undeclared:
            reject(reason, detail: reason == .incomplete ? "the stream ended inside the call" : "the call did not end", end: at)
        }
    }
}

// toolcall-bench — placeholder until the benchmark issue lands; prints its status.

@main
struct ToolCallBench {
    static func main() {
        print("toolcall-bench: not implemented yet")
    }
}

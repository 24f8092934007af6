import Foundation

/// Supervisor start to ready on the simulated board. (Filled in with the supervisor.)
struct StartupBenchmark: Benchmark {
    static let name = "startup"
    static let summary = "supervisor start to ready, simulated board"
    func run() throws -> BenchmarkReport {
        BenchmarkReport(columns: ["measure", "value"], rows: [])
    }
}

import Foundation

/// One benchmark run by `tools/bench NAME` (release build).
///
/// A benchmark measures Tripod and, in the same run, the reference it is compared against, then
/// returns rows for the table. The runner prints the table and writes `.bench/NAME.json`.
protocol Benchmark {
    static var name: String { get }
    static var summary: String { get }
    init()
    func run() throws -> BenchmarkReport
}

/// The result of one benchmark: column names and rows of values, plus free-form notes.
struct BenchmarkReport: Codable {
    var benchmark: String = ""
    var columns: [String]
    var rows: [[String]]
    var notes: [String] = []
    /// Machine-readable values by key (ratios, medians), for tracking over time.
    var metrics: [String: Double] = [:]
}

/// Formats a report as an aligned text table.
func formatTable(_ report: BenchmarkReport) -> String {
    let all = [report.columns] + report.rows
    var widths = Array(repeating: 0, count: report.columns.count)
    for row in all { for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) } }
    func line(_ row: [String]) -> String {
        row.enumerated().map { i, cell in
            i == 0 ? cell.padding(toLength: widths[i], withPad: " ", startingAt: 0)
                   : String(repeating: " ", count: max(0, widths[i] - cell.count)) + cell
        }.joined(separator: "  ")
    }
    var out = [line(report.columns), widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")]
    out += report.rows.map(line)
    out += report.notes.map { "note: \($0)" }
    return out.joined(separator: "\n")
}

/// Nanoseconds on CLOCK_MONOTONIC, for timing.
func monotonicNanoseconds() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}

/// The p-th percentile (0...100) of `values`, nearest-rank.
func percentile(_ values: [Double], _ p: Double) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    let rank = Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1
    return sorted[min(max(rank, 0), sorted.count - 1)]
}

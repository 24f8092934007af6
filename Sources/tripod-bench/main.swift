import Foundation

/// Every benchmark, by name. Add new ones here.
let benchmarks: [any Benchmark.Type] = [
    StartupBenchmark.self,
    ShutterBenchmark.self,
    DisplayBenchmark.self,
    MediaBenchmark.self,
    IMUBenchmark.self,
    SimulatedCameraBenchmark.self,
    ConsoleBenchmark.self,
    BracketBenchmark.self,
    VideoBenchmark.self,
    SoakBenchmark.self,
    RecordingSoakBenchmark.self,
    VideoStabilizationBenchmark.self,
    StabilizationBenchmark.self,
    RemoteBenchmark.self,
    RawFormatsBenchmark.self,
    TimelapseBenchmark.self,
    FleetBenchmark.self,
    CollectBenchmark.self,
    MotionBenchmark.self,
    StreamBenchmark.self,
]

@MainActor func usage() -> String {
    "usage: tripod-bench NAME [--json-dir DIR]\n" +
        benchmarks.map { "  \($0.name.padding(toLength: 10, withPad: " ", startingAt: 0)) \($0.summary)" }.joined(separator: "\n")
}

var arguments = Array(CommandLine.arguments.dropFirst())
var jsonDirectory = ".bench"
if let i = arguments.firstIndex(of: "--json-dir"), i + 1 < arguments.count {
    jsonDirectory = arguments[i + 1]
    arguments.removeSubrange(i...(i + 1))
}
guard let name = arguments.first, !["-h", "--help"].contains(name) else {
    print(usage())
    exit(arguments.isEmpty ? 2 : 0)
}
guard let kind = benchmarks.first(where: { $0.name == name }) else {
    FileHandle.standardError.write(Data("tripod-bench: unknown benchmark \"\(name)\"\n\(usage())\n".utf8))
    exit(2)
}
do {
    var report = try kind.init().run()
    report.benchmark = name
    print("== \(name): \(kind.summary)")
    print(formatTable(report))
    try FileManager.default.createDirectory(atPath: jsonDirectory, withIntermediateDirectories: true)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    let path = "\(jsonDirectory)/\(name).json"
    try encoder.encode(report).write(to: URL(fileURLWithPath: path))
    print("wrote \(path)")
} catch {
    FileHandle.standardError.write(Data("tripod-bench \(name): \(error)\n".utf8))
    exit(1)
}

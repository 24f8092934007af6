import Foundation

/// Starts this test binary again as a child process that runs only the tests matching `filter`,
/// with `variable` set to `value` in its environment (the child's side of a test is enabled by
/// it), its output discarded: for tests that kill a process with SIGKILL in the middle of a write.
public func startTestChild(filter: String, setting variable: String, to value: String) throws -> Process {
    let child = Process()
    child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    child.arguments = ["--testing-library", "swift-testing", "--filter", filter]
    var environment = ProcessInfo.processInfo.environment
    environment[variable] = value
    child.environment = environment
    child.standardOutput = FileHandle.nullDevice
    child.standardError = FileHandle.nullDevice
    try child.run()
    return child
}

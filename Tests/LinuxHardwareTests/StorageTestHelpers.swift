import Foundation
import Glibc
import Hardware
import Syscalls
@testable import LinuxHardware
import TestSupport

/// A fresh directory under the system temporary directory.
func makeTemporaryDirectory() throws -> String {
    let path = NSTemporaryDirectory() + "tripod-storage-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// A storage over a fresh temporary directory (or `subdirectory` of it) whose system calls go
/// through the seam's retry around a `FaultInjectingSyscalls` that writes at most
/// `maximumWriteBytes` a call; the caller removes `directory` when done.
func makeFaultInjectedStorage(subdirectory: String = "", maximumWriteBytes: Int? = nil) throws
    -> (directory: String, syscalls: FaultInjectingSyscalls, storage: PosixStorage) {
    let directory = try makeTemporaryDirectory()
    let syscalls = FaultInjectingSyscalls()
    if let maximumWriteBytes { syscalls.maximumWriteBytes = maximumWriteBytes }
    do { return (directory, syscalls, try PosixStorage(root: directory + subdirectory, syscalls: RetryingSyscalls(syscalls))) }
    catch { try? FileManager.default.removeItem(atPath: directory); throw error }
}

/// Every name in a directory, hidden files included (what a person with `ls -a` would see).
func allNames(_ directory: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
}

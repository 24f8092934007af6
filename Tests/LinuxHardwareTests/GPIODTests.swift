import Foundation
import Glibc
import Hardware
import Testing
@testable import LinuxHardware

/// The libgpiod error paths this machine can reach: it has no /dev/gpiochip*.
@Suite struct GPIODTests {
    static let noChips = (try? FileManager.default.contentsOfDirectory(atPath: "/dev").contains { $0.hasPrefix("gpiochip") }) != true

    @Test(.enabled(if: noChips, "needs a machine without GPIO chips"))
    func missingChipIsNotFoundAndNamesIt() {
        for chip in ["gpiochip9", "/dev/gpiochip4"] {
            let error = #expect(throws: HardwareError.self) {
                _ = try GPIODInputLine(GPIOLineAddress(chip: chip, offset: 17))
            }
            #expect(error?.kind == .notFound)
            #expect(error?.message.contains("GPIO chip \"\(chip)\"") == true, "\(error?.message ?? "")")
            #expect(error?.message.contains("gpiod_chip_open_lookup") == true)
        }
    }

    @Test(.enabled(if: noChips, "needs a machine without GPIO chips"))
    func unknownLineNameIsNotFoundAndNamesIt() {
        let error = #expect(throws: HardwareError.self) {
            _ = try GPIODInputLine(GPIOLineAddress(name: "SHUTTER", bias: .pullUp, activeLow: true))
        }
        #expect(error?.kind == .notFound)
        #expect(error?.message.contains("\"SHUTTER\"") == true)
        #expect(error?.message.contains("gpiod_line_find") == true)
        let led = #expect(throws: HardwareError.self) { _ = try GPIODOutputLine(GPIOLineAddress(name: "LED")) }
        #expect(led?.kind == .notFound)
        #expect(led?.message.contains("\"LED\"") == true)
    }

    @Test func aFileThatIsNotAGPIOChipIsRefusedClearly() {
        let error = #expect(throws: HardwareError.self) {
            _ = try GPIODInputLine(GPIOLineAddress(chip: "/dev/null", offset: 0))
        }
        #expect(error?.message.contains("\"/dev/null\"") == true)
        #expect(error?.kind != .other, "\(error?.message ?? "")")
    }

    @Test func addressWithNeitherNameNorChipIsInvalid() {
        let error = #expect(throws: HardwareError.self) { _ = try GPIODInputLine(GPIOLineAddress(offset: 3)) }
        #expect(error?.kind == .invalidArgument)
    }

    @Test(.enabled(if: noChips, "needs a machine without GPIO chips"))
    func factoryReportsTheShutterLineAndChecksTheSection() throws {
        let json = #"{"backend": "gpiod", "shutter": {"name": "SHUTTER", "bias": "pull-up", "activeLow": true}, "led": {"name": "LED"}}"#
        let section = try JSONDecoder().decode(BoardDescription.GPIOSection.self, from: Data(json.utf8))
        let missing = #expect(throws: HardwareError.self) { _ = try GPIODButtonLines.open(section) }
        #expect(missing?.kind == .notFound)
        #expect(missing?.message.contains("SHUTTER") == true)

        var sim = section
        sim.backend = "sim"
        #expect((#expect(throws: HardwareError.self) { _ = try GPIODButtonLines.open(sim) })?.kind == .invalidArgument)
        var noShutter = section
        noShutter.shutter = nil
        #expect((#expect(throws: HardwareError.self) { _ = try GPIODButtonLines.open(noShutter) })?.kind == .invalidArgument)
    }

    @Test func busyMessageNamesTheLineAndItsConsumer() {
        let held = GPIODErrors.busy("GPIO line \"SHUTTER\" on gpiochip0", call: "gpiod_line_request_both_edges_events_flags", consumer: "gpio-keys")
        #expect(held.kind == .busy)
        #expect(held.errno == EBUSY)
        #expect(held.message.contains("GPIO line \"SHUTTER\" on gpiochip0"))
        #expect(held.message.contains("consumer \"gpio-keys\""))
        let unknown = GPIODErrors.busy("GPIO line 17 of GPIO chip \"gpiochip0\"", call: "gpiod_line_request_output_flags", consumer: "")
        #expect(unknown.message.contains("another process"))
        #expect(!unknown.message.contains("consumer \""))
    }

    @Test func errnoKinds() {
        #expect(GPIODErrors.kind(errno: ENOENT) == .notFound)
        #expect(GPIODErrors.kind(errno: ENODEV) == .notFound)
        #expect(GPIODErrors.kind(errno: EBUSY) == .busy)
        #expect(GPIODErrors.kind(errno: EACCES) == .permission)
        #expect(GPIODErrors.kind(errno: EPERM) == .permission)
        let denied = GPIODErrors.error("GPIO chip \"gpiochip0\"", call: "gpiod_chip_open_lookup", errno: EACCES)
        #expect(denied.kind == .permission)
        #expect(denied.message.contains("gpiochip0") && denied.message.contains("permission"))
    }
}


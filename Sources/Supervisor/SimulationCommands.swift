import Console
import Foundation
import Hardware

/// Commands that only the simulated board has: moving the rig and pressing the button.
extension Supervisor {
    /// `sim hang <s>`: blocks the loop, as a stuck handler would (simulated board only).
    static func hang(_ text: String) -> Reply {
        guard let seconds = Double(text), seconds > 0, seconds <= 60 else {
            return .err(.badValue, "hang \"\(text)\": seconds from 0 to 60")
        }
        usleep(UInt32(seconds * 1_000_000))
        return .ok([("hung", ValueParser.formatNumber(seconds) + "s")])
    }

    /// `sim light sunset|sunrise <span> | steady`.
    func simulateLight(_ args: [String]) -> Reply {
        guard let changeLight = devices.simulation?.changeLight else { return .err(.unsupported, "not a simulated camera") }
        guard let name = args.first, args.count == (name == "steady" ? 1 : 2) else {
            return .err(.usage, "usage: sim light sunset <span> | sunrise <span> | steady")
        }
        do {
            let span = try args.count == 2 ? ValueParser.span(args[1]) : nil
            let level = try changeLight(name, span)
            let fields: [(String, String)] = [("light", name), ("to.ev", ValueParser.formatNumber(level))]
                + (span.map { [("over", ValueParser.formatSpan($0))] } ?? [])
            broadcast(ConsoleEvent("sim.light", fields))
            return .ok(fields)
        } catch let error as ConsoleError {
            return .error(error)
        } catch {
            return .err(.badValue, "\(error)")
        }
    }

    /// `sim object cross [SPEED] [SIZE]`: SPEED frame widths per second (default 0.5), SIZE its
    /// height as a share of the frame's (default 0.25). The reply names the frame it enters.
    func simulateObject(_ args: [String]) -> Reply {
        guard let cross = devices.simulation?.crossObject else { return .err(.unsupported, "not a simulated camera") }
        guard args.first == "cross", args.count <= 3 else { return .err(.usage, "usage: sim object cross [SPEED widths/s] [SIZE share of the height]") }
        let numbers = args.dropFirst().map { Double($0) }
        guard numbers.allSatisfy({ $0 != nil }) else { return .err(.badValue, "sim object cross: SPEED and SIZE are numbers (0.5 0.25)") }
        let speed = numbers.first.flatMap { $0 } ?? 0.5, size = numbers.dropFirst().first.flatMap { $0 } ?? 0.25
        do {
            let sequence = try cross(speed, size)
            let fields: [(String, String)] = [("object", "cross"), ("enters.sequence", String(sequence)),
                                              ("speed", ValueParser.formatNumber(speed)), ("size", ValueParser.formatNumber(size))]
            broadcast(ConsoleEvent("sim.object", fields))
            return .ok(fields)
        } catch {
            return .err(.badValue, "\(error)")
        }
    }

    /// `sim pose X,Y,Z lookat X,Y,Z`.
    func simulatePose(_ args: [String]) -> Reply {
        guard let setPose = devices.simulation?.setPose else { return .err(.unsupported, "not a simulated camera") }
        guard args.count == 3 else { return .err(.usage, "usage: sim pose X,Y,Z lookat X,Y,Z (metres)") }
        do {
            let pose = try setPose(args.joined(separator: " "))
            broadcast(ConsoleEvent("sim.pose", [("pose", pose)]))
            return .ok([("pose", pose)])
        } catch {
            return .err(.badValue, "\(error)")
        }
    }

    /// `sim pir`: the simulated PIR sensor sees something (its line's rising edge).
    func simulatePIR() -> Reply {
        guard let pir = devices.simulation?.pir else { return .err(.unsupported, "this board has no simulated PIR line (gpio.pir)") }
        do { try pir() } catch { return .err(.device, "\(error)") }
        return .ok([("pir", "active")])
    }

    func registerSimulationCommands() {
        guard let hooks = devices.simulation else { return }
        if hooks.setMotion != nil || hooks.setScene != nil || hooks.changeLight != nil || hooks.setPose != nil || hooks.crossObject != nil || hooks.pir != nil {
            commands.add(Command("sim", synopsis: "motion still|handheld|walking|pan [amplitude °/s] | scene even|backlit|depth|object [spin °/s] | pose X,Y,Z lookat X,Y,Z | light sunset|sunrise <span> | light steady | object cross [speed] [size] | pir | hang <s>",
                                 summary: "simulated board: change the rig's motion, pose or scene, send an object across or raise the PIR line, or hang the loop (watchdog test)",
                                 detail: ["example: sim motion handheld 3", "The IMU and the simulated frames' blur follow the same motion.",
                                          "sim scene backlit: a bright window and a deep shadow (a high-contrast scene for video HDR); sim scene even: back to the lit chart.",
                                          "sim scene depth: the lit chart in six upright strips at 0.15, 0.25, 0.4, 0.7 and 1.5 m and infinity (left to right), each blurred by its defocus: for focus brackets.",
                                          "sim scene object: a textured box and cylinder on a turntable at the origin, on a textured ground inside a textured backdrop 3.5 m away (docs/photogrammetry.md); sim scene object spin 60 turns it at 60 °/s.",
                                          "sim pose 1.6,0,0.9 lookat 0,0,0.35: where the rig stands in the object scene and what it looks at (metres, z up; also sim.pose in the config file).",
                                          "sim light sunset 1h: the light falls smoothly by 14 EV (day to night) over an hour of the camera's clock; sunrise 1h goes back to day; steady holds the level reached.",
                                          "sim object cross 0.5 0.25: an animal-sized textured blob steps out whole at the left edge in the next frame and walks right at 0.5 frame widths per second, 0.25 of the frame high; the reply names that frame (enters.sequence).",
                                          "sim pir: the simulated PIR line (board gpio.pir) goes active: a trigger, as a real sensor's rising edge.",
                                          "sim hang 3 blocks the supervisor's loop for 3 s (at most 60): the watchdog pings stop."],
                                 arguments: 1...4) { context, args in
                if args == ["pir"] { return context.supervisor.simulatePIR() }
                if args[0] == "hang", args.count == 2 { return Self.hang(args[1]) }
                if args[0] == "pose" { return context.supervisor.simulatePose(Array(args.dropFirst())) }
                if args[0] == "object" { return context.supervisor.simulateObject(Array(args.dropFirst())) }
                if args[0] == "light" { return context.supervisor.simulateLight(Array(args.dropFirst())) }
                if args[0] == "scene" {
                    guard let setScene = context.supervisor.devices.simulation?.setScene else { return .err(.unsupported, "not a simulated camera") }
                    do {
                        let name = try setScene(args.dropFirst().joined(separator: " "))
                        context.supervisor.broadcast(ConsoleEvent("sim.scene", [("lighting", name)]))
                        return .ok([("scene", name)])
                    } catch {
                        return .err(.badValue, "\(error)")
                    }
                }
                guard args[0] == "motion", (2...3).contains(args.count) else { return .err(.usage, "usage: sim motion still|handheld|walking|pan [amplitude °/s] | scene even|backlit|depth|object [spin °/s] | pose X,Y,Z lookat X,Y,Z | light sunset|sunrise <span> | light steady | object cross [speed] [size] | pir | hang <s>") }
                var amplitude: Double? = nil
                if args.count == 3 {
                    guard let a = Double(args[2]), a >= 0, a.isFinite else {
                        return .err(.badValue, "amplitude \"\(args[2])\" is not a number of °/s")
                    }
                    amplitude = a
                }
                do {
                    guard let setMotion = context.supervisor.devices.simulation?.setMotion else { return .err(.unsupported, "not a simulated board") }
                    let name = try setMotion(args[1], amplitude)
                    context.supervisor.broadcast(ConsoleEvent("sim.motion", [("profile", name)]))
                    return .ok([("motion", name)] + (amplitude.map { [("amplitude", ValueParser.formatNumber($0))] } ?? []))
                } catch {
                    return .err(.badValue, "\(error)")
                }
            })
        }
        if hooks.button != nil {
            commands.add(Command("button", synopsis: "press|hold <ms>|half", summary: "simulated board: press the shutter button",
                                 detail: ["press: a short press; hold 1200: held 1.2 s (a long press); half: toggle half-press"],
                                 arguments: 1...2) { context, args in
                var duration: Duration? = nil
                if args[0] == "hold" {
                    guard args.count == 2, let ms = Int(args[1]), ms > 0, ms <= 600_000 else {
                        return .err(.usage, "usage: button hold <milliseconds 1…600000>")
                    }
                    duration = .milliseconds(ms)
                } else if args.count != 1 {
                    return .err(.usage, "usage: button press|hold <ms>|half")
                }
                do {
                    guard let button = context.supervisor.devices.simulation?.button else { return .err(.unsupported, "not a simulated board") }
                    try button(args[0], duration)
                    // A stop (quit, end of piped input) waits until the gesture has been decided,
                    // so `printf 'button press\n' | tripod run` still captures.
                    let supervisor = context.supervisor
                    supervisor.beginWork("button")
                    let bound = LoopBound(supervisor, loop: supervisor.loop)
                    let settle = supervisor.buttonGestureSettle
                    supervisor.loop.schedule(after: (duration ?? .zero) + settle) { bound.value.endWork("button") }
                    return .ok([("button", args[0])])
                } catch {
                    return .err(.badValue, "\(error)")
                }
            })
        }
    }
}

extension Supervisor {
    /// Time after a simulated press or hold by which the button logic has decided what it was:
    /// the debounce window, the double-press window and the long-press threshold, plus 200 ms.
    var buttonGestureSettle: Duration {
        let c = typed.button
        let ms = c.debounceWindowMilliseconds + c.doublePressWindowMilliseconds + c.longPressThresholdMilliseconds + 200
        return .milliseconds(Int64(ms.rounded(.up)))
    }
}

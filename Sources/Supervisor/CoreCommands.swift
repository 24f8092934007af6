import Console
import Hardware
import Settings
import Transports

extension Supervisor {
    /// The commands every board has. Capability commands are added by their own files.
    func registerCoreCommands() {
        commands.add(Command("status", summary: "board, devices, state and counters",
                             detail: ["example: status", "ok state=ready board=sim camera=imx708 ..."]) { context, _ in
            context.supervisor.statusReply()
        })
        commands.add(Command("quit", summary: "close this console (on stdio: stop the supervisor)",
                             detail: ["On the stdio console, quit (or end of input) stops tripod cleanly",
                                      "after work in progress; elsewhere it only closes this client."]) { context, _ in
            context.supervisor.quit(context.session)
        })
        commands.add(Command("json", synopsis: "on|off", summary: "machine mode: one JSON object per line",
                             arguments: 1...1) { context, args in
            do throws(ConsoleError) {
                context.session.mode = try ValueParser.bool(args[0]) ? .json : .human
                return .ok([("json", context.session.mode == .json ? "on" : "off")])
            } catch { return .error(error) }
        })
        commands.add(Command("get", synopsis: "[key]", summary: "read a setting, or all of them",
                             detail: ["keys: " + SettingsTable.all.map(\.key).joined(separator: " "),
                                      "example: get \(SettingsTable.exposureDuration.key)  →  ok \(SettingsTable.exposureDuration.key)=1/60"],
                             arguments: 0...1) { context, args in
            context.supervisor.getReply(args.first)
        })
        commands.add(Command("set", synopsis: "<key> <value>", summary: "change a setting (same keys as the config file)",
                             detail: SettingsTable.all.map { "\($0.key): \($0.summary) (\($0.forms))" } +
                                 ["example: set \(SettingsTable.exposureDuration.key) 1/60", "example: set \(SettingsTable.exposureISO.key) ISO 400"],
                             arguments: 2...8) { context, args in
            let value = args.dropFirst().joined(separator: " ")
            do throws(ConsoleError) {
                return .ok(try context.supervisor.change(key: args[0], value: value, requestedBy: context.origin))
            } catch { return .error(error) }
        })
    }

    func quit(_ session: ConsoleSession) -> Reply {
        if session.kind == .stdio {
            requestStop(reason: "quit on the console")
            return .ok([("state", isBusy ? "stopping after work in progress" : "stopped")])
        }
        let reply = Reply.ok([("closed", session.name)])
        session.send(reply)
        session.output.close()
        detach(session)
        return reply
    }

    func getReply(_ key: String?) -> Reply {
        guard let key else {
            return .ok(SettingsTable.all.map { ($0.key, $0.text(in: typed)) })
        }
        let value: String
        do throws(ConsoleError) { value = try SettingsTable.lookUp(key).text(in: typed) } catch { return .error(error) }
        if let active = activeValue(for: key), active != value { return .ok([(key, value), ("active", active)]) }
        return .ok([(key, value)])
    }

    func statusReply() -> Reply {
        var fields: [(String, String)] = [
            ("state", state.rawValue),
            ("board", devices.board.name),
        ]
        fields += deviceSummary()
        fields += cameraStatusFields()
        fields += captureStatusFields()
        fields += timelapseStatusFields()
        fields += recordingStatusFields()
        fields += streamStatusFields()
        fields.append(("imu.samples", String(runtime.imuSamples)))
        if hasIMU {
            fields.append(("imu.still", motion.isStill ? "yes" : "no"))
            fields.append(("imu.rate", ValueParser.formatNumber(motion.angularSpeedDegreesPerSecond) + "°/s"))
        }
        fields.append(("captures", devices.storage.rootDescription))
        if let url = remoteAdvertisedURL { fields.append(("remote", url)) }
        if let free = try? devices.storage.freeBytes() {
            fields.append(("free", ValueParser.formatNumber(Double(free) / 1e9) + "GB"))
        }
        fields.append(("uptime", ValueParser.formatNumber(uptime.secondsValue) + "s"))
        if let startupWarning { fields.append(("warning", startupWarning)) }
        return .ok(fields)
    }
}

import Camera
import Console
import Hardware
import Settings

extension Supervisor {
    /// Camera commands: the format table, format selection, AF trigger and gray-world lock.
    func registerCameraCommands() {
        commands.add(Command("formats", summary: "the camera's format table",
                             detail: ["columns: index, size, pixel format, fps range, FOV, binned, zoom, AF, ISO and exposure ranges,",
                                      "video HDR, stabilization modes, high-resolution still size"]) { context, _ in
            guard let camera = context.supervisor.camera else { return .err(.unsupported, "no camera") }
            let lines = FormatTable.renderText(camera.formats, maximumWidth: TerminalWidth.bodyColumns).split(separator: "\n").map(String.init)
            return .ok([("formats", String(camera.formats.count)), ("active", camera.activeFormat.format.label)], body: lines)
        })
        commands.add(Command("format", synopsis: "<index|WxH@fps>", summary: "select the active format (same as set format)",
                             detail: ["example: format 1536x864@120", "example: format 2"], arguments: 1...1) { context, args in
            do throws(ConsoleError) {
                return .ok(try context.supervisor.change(key: SettingsTable.format.key, value: args[0], requestedBy: context.origin))
            } catch { return .error(error) }
        })
        commands.add(Command("af", summary: "start one autofocus scan (\(SettingsTable.focusMode.key) auto)",
                             detail: ["With \(SettingsTable.focusMode.key) auto, each af runs one scan; the lens then holds."]) { context, _ in
            guard let camera = context.supervisor.camera else { return .err(.unsupported, "no camera") }
            do {
                try camera.triggerAutofocus()
                return .ok([("af", "started")])
            } catch let error as CameraError {
                return .err(context.supervisor.consoleCode(error), error.message)
            } catch { return .err(.device, "\(error)") }
        })
        commands.add(Command("grayworld", summary: "lock white balance to the gains that make this frame neutral",
                             detail: ["Sets \(SettingsTable.whiteBalanceMode.key) gains and \(SettingsTable.whiteBalanceGains.key) to the computed red,blue gains."]) { context, _ in
            let s = context.supervisor
            guard let camera = s.camera else { return .err(.unsupported, "no camera") }
            do {
                let gains = try camera.lockWhiteBalanceGrayWorld()
                let change = try s.settings.update(origin: .grayWorld, requestedBy: context.origin) {
                    $0.whiteBalanceMode = .gains
                    $0.whiteBalanceGains = gains
                }
                let fields = [SettingsTable.whiteBalanceMode.any, SettingsTable.whiteBalanceGains.any].map { ($0.key, $0.text(in: change.new)) }
                return .ok(fields)
            } catch let error as ConsoleError {
                return .error(error)
            } catch let error as CameraError {
                return .err(s.consoleCode(error), error.message)
            } catch { return .err(.device, "\(error)") }
        })
    }

    /// Live camera values for `status`.
    func cameraStatusFields() -> [(String, String)] {
        guard let camera, let frame = camera.latest else { return [] }
        var fields: [(String, String)] = [
            ("frame", String(frame.sequence)),
            ("exposure", frame.exposureDurationMicroseconds.map { ValueParser.formatShutter(.microseconds($0)) } ?? "unreported"),
            ("iso", frame.iso.map(ValueParser.formatNumber) ?? "unreported"),
        ]
        if let lens = frame.lensPositionDioptres { fields.append(("lens", ValueParser.formatNumber(lens) + "D")) }
        if let af = frame.autofocusState { fields.append(("af", af.rawValue)) }
        if let g = frame.colourGains { fields.append(("wb", ValueParser.formatNumber(g.red) + "," + ValueParser.formatNumber(g.blue))) }
        if let offset = camera.exposureTargetOffsetEV { fields.append(("ev.offset", ValueParser.formatNumber(offset))) }
        if camera.activeFormat.format.videoHDR.isSupported { fields.append((SettingsTable.videoHDR.key, videoHDR.activeDescription + " frame=" + frame.hdrLabel)) }
        return fields + Self.frameSyncFields(camera.frameSyncStatus)
    }

    /// `fleet.sync`'s state: its part, SyncReady, SyncTimer (ms), a client's measured alignment
    /// (µs), the fixed rate; or why the camera cannot play the part. Nothing while it is off.
    static func frameSyncFields(_ sync: FrameSyncStatus) -> [(String, String)] {
        guard sync.mode != .off else { return [] }
        guard sync.active else { return [("sync", "unavailable"), ("sync.note", sync.note ?? "")] }
        var fields: [(String, String)] = [("sync", sync.mode.rawValue), ("sync.ready", sync.ready ? "yes" : "no")]
        if let timer = sync.timerMicroseconds { fields.append(("sync.timer.ms", ValueParser.formatNumber((Double(timer) / 1000).rounded()))) }
        if let alignment = sync.alignmentMicroseconds { fields.append(("sync.alignment.us", String(alignment))) }
        if let frame = sync.frameMicroseconds { fields.append(("sync.fps", ValueParser.formatNumber((1e7 / Double(frame)).rounded() / 10))) }
        if let note = sync.note { fields.append(("sync.note", note)) }
        return fields
    }
}

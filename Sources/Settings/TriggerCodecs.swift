import Console
import Triggers

/// The codecs of the `trigger.*` settings: the Triggers module's parsers, their errors as console words.
extension SettingCodec {
    /// Text of the given forms read by one of module Triggers' parsers; its `TriggerSettingError`
    /// becomes `bad-value` with the key in front.
    static func triggerText(forms: String, parse: @escaping @Sendable (String) throws(TriggerSettingError) -> Value,
                            format: @escaping @Sendable (Value) -> String) -> SettingCodec {
        SettingCodec(kind: .text(forms: forms), parse: { text, key throws(ConsoleError) in
            do throws(TriggerSettingError) { return try parse(text) } catch {
                throw ConsoleError(.badValue, "\(key): \(error.message)")
            }
        }, format: format)
    }
}

extension SettingCodec where Value == [MotionZone] {
    static var motionZones: SettingCodec {
        .triggerText(forms: "X,Y,W,H fractions of the frame (0,0,1,1 = all); several separated by ';'",
                     parse: MotionZone.parseList, format: { $0.map(\.description).joined(separator: ";") })
    }
}

extension SettingCodec where Value == TriggerAction {
    static var triggerAction: SettingCodec { .triggerText(forms: TriggerAction.forms, parse: TriggerAction.parse, format: \.description) }
}

extension SettingCodec where Value == TriggerSchedule {
    static var triggerSchedule: SettingCodec { .triggerText(forms: TriggerSchedule.forms, parse: TriggerSchedule.parse, format: \.description) }
}

import Console
import Triggers

/// The codecs of the `trigger.*` settings: the Triggers module's parsers, their errors as console words.
extension SettingCodec where Value == [MotionZone] {
    static var motionZones: SettingCodec {
        SettingCodec(kind: .text(forms: "X,Y,W,H fractions of the frame (0,0,1,1 = all); several separated by ';'"),
                     parse: { text, key throws(ConsoleError) in
                         do throws(TriggerSettingError) { return try MotionZone.parseList(text) } catch {
                             throw ConsoleError(.badValue, "\(key): \(error.message)")
                         }
                     },
                     format: { $0.map(\.description).joined(separator: ";") })
    }
}

extension SettingCodec where Value == TriggerAction {
    static var triggerAction: SettingCodec {
        SettingCodec(kind: .text(forms: TriggerAction.forms), parse: { text, key throws(ConsoleError) in
            do throws(TriggerSettingError) { return try TriggerAction.parse(text) } catch {
                throw ConsoleError(.badValue, "\(key): \(error.message)")
            }
        }, format: { $0.description })
    }
}

extension SettingCodec where Value == TriggerSchedule {
    static var triggerSchedule: SettingCodec {
        SettingCodec(kind: .text(forms: TriggerSchedule.forms), parse: { text, key throws(ConsoleError) in
            do throws(TriggerSettingError) { return try TriggerSchedule.parse(text) } catch {
                throw ConsoleError(.badValue, "\(key): \(error.message)")
            }
        }, format: { $0.description })
    }
}

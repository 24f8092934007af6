import Foundation  // trimmingCharacters
import Console

/// The `button.*` settings (console `set`/`get`, the config file, `save`); the
/// `ButtonConfiguration` they describe is parsed once per change in `TypedSettings.button`.
enum ButtonSettings {
    /// Every `button.*` key of `SettingsSchema`.
    static let keys: Set<String> = ["button.debounce", "button.double", "button.long", "button.press",
                                    "button.double-press", "button.long-press", "button.busy", "button.required"]

    /// Accepted action spellings, for help and errors.
    static let actionForms = "capture|bracket:<preset>|record|af|none"

    /// Checks an action setting; returns its canonical text ("none" leaves the gesture unused).
    /// The preset named by `bracket:<preset>` need not exist yet: a press reports it missing.
    static func normaliseAction(_ text: String, key: String) throws(ConsoleError) -> String {
        // The action word is case-insensitive; a preset name is not (names are lower case).
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let colon = trimmed.firstIndex(of: ":") ?? trimmed.endIndex
        let t = trimmed[..<colon].lowercased() + trimmed[colon...]
        if t == "none" { return t }
        guard let action = ButtonAction(parsing: t) else {
            throw ConsoleError(.badValue, "\(key) \"\(text)\" is not an action; use \(actionForms)")
        }
        if case .bracket(let name) = action { try BracketPresetName.check(name) }
        return action.description
    }
}

/// Bracket preset names: 1 to 32 of a-z, 0-9, "-" and "_".
enum BracketPresetName {
    static let rule = "1 to 32 characters of a-z 0-9 - _"

    static func check(_ name: String) throws(ConsoleError) {
        let allowed = name.utf8.allSatisfy { c in
            (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9"))
                || c == UInt8(ascii: "-") || c == UInt8(ascii: "_")
        }
        guard allowed, (1...32).contains(name.utf8.count) else {
            throw ConsoleError(.badValue, "bad preset name \"\(name)\"; use \(rule)")
        }
    }
}

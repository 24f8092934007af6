import Foundation  // trimmingCharacters

/// A `button.*` action that cannot be used, and why in words (the settings say it as a bad value).
public struct ButtonSettingsError: Error, Equatable, Sendable {
    public let message: String
}

/// The spelling of the `button.*` actions (SettingsTable parses them into `ButtonConfiguration`).
public enum ButtonSettings {
    /// Accepted action spellings, for help and errors.
    public static let actionForms = "capture|bracket:<preset>|record|af|none"

    /// Checks an action setting; returns its canonical text ("none" leaves the gesture unused).
    /// The preset named by `bracket:<preset>` need not exist yet: a press reports it missing.
    public static func normaliseAction(_ text: String, key: String) throws(ButtonSettingsError) -> String {
        // The action word is case-insensitive; a preset name is not (names are lower case).
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let colon = trimmed.firstIndex(of: ":") ?? trimmed.endIndex
        let t = trimmed[..<colon].lowercased() + trimmed[colon...]
        if t == "none" { return t }
        guard let action = ButtonAction(parsing: t) else {
            throw ButtonSettingsError(message: "\(key) \"\(text)\" is not an action; use \(actionForms)")
        }
        if case .bracket(let name) = action, let problem = BracketPresetName.problem(name) { throw ButtonSettingsError(message: problem) }
        return action.description
    }
}

/// Bracket preset names: 1 to 32 of a-z, 0-9, "-" and "_".
public enum BracketPresetName {
    public static let rule = "1 to 32 characters of a-z 0-9 - _"

    /// Why `name` cannot name a preset, or nil when it can.
    public static func problem(_ name: String) -> String? {
        let allowed = name.utf8.allSatisfy { c in
            (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9"))
                || c == UInt8(ascii: "-") || c == UInt8(ascii: "_")
        }
        return allowed && (1...32).contains(name.utf8.count) ? nil : "bad preset name \"\(name)\"; use \(rule)"
    }
}

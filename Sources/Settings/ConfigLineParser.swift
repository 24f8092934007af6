/// The lexical part of `tripod.conf`: one line to a key and a raw value (see `ConfigFile`).
public enum ConfigLineParser {
    public struct Failure: Error { var message: String }

    /// nil for a blank or comment line.
    public static func parse(_ line: Substring) throws -> (key: String, value: String)? {
        let trimmed = line.trimmingBlanks()
        if trimmed.isEmpty || trimmed.first == "#" { return nil }
        guard let equals = trimmed.firstIndex(of: "=") else {
            throw Failure(message: "expected \"key = value\", found \"\(trimmed.prefix(40))\"")
        }
        let key = trimmed[..<equals].trimmingBlanks()
        if key.isEmpty { throw Failure(message: "missing key before \"=\"") }
        if let bad = key.first(where: { !isKeyCharacter($0) }) {
            throw Failure(message: "key \"\(key)\" contains \"\(bad)\" (keys are letters, digits, _ - .)")
        }
        let rest = trimmed[trimmed.index(after: equals)...].trimmingBlanks()
        let value: String
        switch rest.first {
        case nil, "#":
            throw Failure(message: "missing value for \"\(key)\" (write \"\" for an empty value)")
        case "\"":
            value = try doubleQuoted(rest, key: String(key))
        case "'":
            value = try singleQuoted(rest, key: String(key))
        default:
            value = String(unquoted(rest))
            if value.contains("\"") || value.contains("'") {
                throw Failure(message: "value for \"\(key)\" has a quote inside; quote the whole value")
            }
        }
        return (String(key), value)
    }

    private static func isKeyCharacter(_ c: Character) -> Bool {
        c.isASCII && (c.isLetter || c.isNumber || c == "_" || c == "-" || c == ".")
    }

    /// An unquoted value runs to the end, or to a blank followed by `#`.
    private static func unquoted(_ text: Substring) -> Substring {
        var previousBlank = false
        for index in text.indices {
            if text[index] == "#", previousBlank { return text[..<index].trimmingBlanks() }
            previousBlank = text[index] == " " || text[index] == "\t"
        }
        return text
    }

    private static func doubleQuoted(_ text: Substring, key: String) throws -> String {
        var result = ""
        var index = text.index(after: text.startIndex)
        while index < text.endIndex {
            let c = text[index]
            if c == "\"" {
                try expectOnlyComment(text[text.index(after: index)...], key: key)
                return result
            }
            if c == "\\" {
                index = text.index(after: index)
                guard index < text.endIndex else { break }
                switch text[index] {
                case "\"": result.append("\"")
                case "\\": result.append("\\")
                case "n": result.append("\n")
                case "t": result.append("\t")
                default: throw Failure(message: "unknown escape \"\\\(text[index])\" in value for \"\(key)\"")
                }
            } else {
                result.append(c)
            }
            index = text.index(after: index)
        }
        throw Failure(message: "unterminated \" in value for \"\(key)\"")
    }

    private static func singleQuoted(_ text: Substring, key: String) throws -> String {
        let body = text.dropFirst()
        guard let close = body.firstIndex(of: "'") else {
            throw Failure(message: "unterminated ' in value for \"\(key)\"")
        }
        try expectOnlyComment(body[body.index(after: close)...], key: key)
        return String(body[..<close])
    }

    private static func expectOnlyComment(_ tail: Substring, key: String) throws {
        let rest = tail.trimmingBlanks()
        if !rest.isEmpty && rest.first != "#" {
            throw Failure(message: "unexpected \"\(rest.prefix(20))\" after the quoted value for \"\(key)\"")
        }
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    public func trimmingBlanks() -> Substring {
        var s = self
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return s
    }
}

/// Splits a console line into words: whitespace separates, double quotes group, `\"` and `\\`
/// escape inside quotes. A `#` at the start of a word begins a comment.
public func tokenize(_ line: String) throws(ConsoleError) -> [String] {
    var words: [String] = []
    var current = ""
    var inWord = false
    var inQuotes = false
    var escaping = false
    for ch in line {
        if inQuotes {
            if escaping { current.append(ch); escaping = false }
            else if ch == "\\" { escaping = true }
            else if ch == "\"" { inQuotes = false }
            else { current.append(ch) }
            continue
        }
        if ch == " " || ch == "\t" {
            if inWord { words.append(current); current = ""; inWord = false }
        } else if ch == "\"" {
            inQuotes = true; inWord = true
        } else if ch == "#" && !inWord {
            break
        } else {
            current.append(ch); inWord = true
        }
    }
    if inQuotes { throw ConsoleError(.usage, "unterminated quote") }
    if inWord { words.append(current) }
    return words
}

/// Information lines (`# ...`) for an 80-column serial terminal: the console prefixes each body
/// line with "# ", so a body line holds `bodyColumns` characters at most.
public enum TerminalWidth {
    /// Columns of the narrowest terminal a console serves (a serial terminal).
    public static let columns = 80
    /// Characters a body line may hold after its "# " prefix.
    public static let bodyColumns = columns - 2
    /// Where `help` starts each command's summary.
    public static let helpColumn = 26

    /// Wraps `text` at spaces into lines of at most `width` characters; lines after the first
    /// start with `indent` (the first keeps its own leading spaces). A word longer than a line is
    /// cut (a path, a long value). Text that fits is returned as it is.
    public static func wrap(_ text: String, width: Int = bodyColumns, indent: String = "  ") -> [String] {
        guard text.count > width, width > indent.count + 1 else { return [text] }
        let leading = String(text.prefix { $0 == " " })
        var lines: [String] = []
        var current = leading
        var hasWord = false
        func flush() { lines.append(current); current = indent; hasWord = false }
        for word in text.dropFirst(leading.count).split(separator: " ").map(String.init) {
            if hasWord && current.count + 1 + word.count > width { flush() }
            var piece = Substring(word)
            while current.count + (hasWord ? 1 : 0) + piece.count > width {
                let room = width - current.count - (hasWord ? 1 : 0)
                if room > 0 {
                    current += (hasWord ? " " : "") + piece.prefix(room)
                    piece = piece.dropFirst(room)
                    hasWord = true
                }
                flush()
            }
            if !piece.isEmpty {
                current += (hasWord ? " " : "") + piece
                hasWord = true
            }
        }
        if hasWord { lines.append(current) }
        return lines
    }

    /// "head  summary" with the summary starting at `column` (and wrapping under it); a head too
    /// long for the column gets a line of its own (wrapped too).
    public static func twoColumns(_ head: String, _ summary: String, column: Int, width: Int = bodyColumns) -> [String] {
        let pad = String(repeating: " ", count: column)
        if head.count + 2 <= column {
            let first = head + String(repeating: " ", count: column - head.count) + summary
            if first.count <= width { return [first] }
            let wrapped = wrap(summary, width: width - column, indent: "")
            return [head + String(repeating: " ", count: column - head.count) + wrapped[0]] + wrapped.dropFirst().map { pad + $0 }
        }
        return wrap(head, width: width, indent: "    ") + wrap(summary, width: width - column, indent: "").map { pad + $0 }
    }
}

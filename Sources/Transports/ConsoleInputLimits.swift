import Console

/// How much one read of client input may make the supervisor do.
///
/// A transport hands the loop at most one read (`DescriptorReader.chunkBytes`) per client at a time.
/// Of the lines in one read, a serial or control client gets at most `linesPerRead` run; the rest
/// are dropped and answered with one `err flood ...`. The stdio console (the developer's own pipe)
/// has no line limit: its work per turn is bounded by the read size alone.
public enum ConsoleInputLimits {
    /// Lines run per read for serial and control clients.
    public static let linesPerRead = 64

    /// The line limit for a kind of client; nil means no limit.
    public static func linesPerRead(for kind: ConsoleSession.Kind) -> Int? {
        kind == .stdio ? nil : linesPerRead
    }
}

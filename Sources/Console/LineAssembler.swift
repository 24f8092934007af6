/// Turns raw console bytes into lines, doing the line editing a serial console needs.
///
/// Pure state machine, no I/O: a transport feeds it bytes and acts on the outputs.
/// - CR, LF or CRLF end a line.
/// - Backspace (0x08) and DEL (0x7F) delete the last character; Ctrl-U (0x15) clears the line;
///   Ctrl-C (0x03) drops the line and reports an interrupt.
/// - A line longer than `maximumLineBytes`, or one holding NUL, other control bytes or invalid UTF-8,
///   is reported as an error when it ends; nothing of it is executed.
public struct LineAssembler: Sendable {
    public enum Output: Equatable, Sendable {
        case line(String)
        case rejected(ConsoleError)
        case interrupted
        /// Bytes to echo back when echo is on (typed characters, and "\b \b" for erases).
        case echo([UInt8])
    }

    public static let defaultMaximumLineBytes = 512

    public let maximumLineBytes: Int
    public var echoes: Bool
    private var buffer: [UInt8] = []
    private var overflowed = false
    private var sawControlByte: UInt8? = nil
    private var lastWasCR = false

    public init(maximumLineBytes: Int = LineAssembler.defaultMaximumLineBytes, echoes: Bool = false) {
        self.maximumLineBytes = maximumLineBytes
        self.echoes = echoes
        buffer.reserveCapacity(maximumLineBytes)
    }

    /// Feeds bytes; returns what they produced, in order.
    public mutating func feed<S: Sequence>(_ bytes: S) -> [Output] where S.Element == UInt8 {
        var outputs: [Output] = []
        var echo: [UInt8] = []
        func flushEcho() { if !echo.isEmpty { outputs.append(.echo(echo)); echo.removeAll() } }
        for byte in bytes {
            defer { lastWasCR = (byte == 0x0D) }
            switch byte {
            case 0x0A where lastWasCR:
                continue  // the LF of a CRLF
            case 0x0D, 0x0A:
                if echoes { echo += [0x0D, 0x0A] }
                flushEcho()
                if let out = finishLine() { outputs.append(out) }
            case 0x08, 0x7F:
                if !buffer.isEmpty && !overflowed {
                    // Remove one UTF-8 scalar: continuation bytes are 10xxxxxx.
                    while let removed = buffer.popLast(), removed & 0xC0 == 0x80 {}
                    if echoes { echo += [0x08, 0x20, 0x08] }
                }
            case 0x15:
                if echoes { echo += [0x0D, 0x1B, 0x5B, 0x4B] }  // CR, erase to end of line
                reset()
            case 0x03:
                if echoes { echo += Array("^C\r\n".utf8) }
                flushEcho()
                reset()
                outputs.append(.interrupted)
            default:
                if byte < 0x20 && byte != 0x09 || byte == 0x00 {
                    if sawControlByte == nil { sawControlByte = byte }
                } else if buffer.count >= maximumLineBytes {
                    overflowed = true
                } else {
                    buffer.append(byte)
                    if echoes { echo.append(byte) }
                }
            }
        }
        flushEcho()
        return outputs
    }

    /// True when part of a line is waiting for its end.
    public var hasPartialLine: Bool { !buffer.isEmpty || overflowed || sawControlByte != nil }

    private mutating func reset() {
        buffer.removeAll(keepingCapacity: true)
        overflowed = false
        sawControlByte = nil
    }

    private mutating func finishLine() -> Output? {
        defer { reset() }
        if overflowed {
            return .rejected(ConsoleError(.lineTooLong, "line longer than \(maximumLineBytes) bytes; nothing was run"))
        }
        if let control = sawControlByte {
            let name = control == 0 ? "NUL byte" : "control byte 0x" + String(control, radix: 16, uppercase: true)
            return .rejected(ConsoleError(.badInput, "\(name) in line; only printable text is accepted"))
        }
        guard let text = String(validating: buffer, as: UTF8.self) else {
            return .rejected(ConsoleError(.badInput, "line is not valid UTF-8"))
        }
        return .line(text)
    }
}

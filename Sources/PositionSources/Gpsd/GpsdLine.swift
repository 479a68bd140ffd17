import WhereaboutsCore

/// One line of gpsd output read exactly as ``GpsdSource`` reads it, for the fuzz harnesses
/// (`Fuzz/`), which need the decoder without a gpsd connection.
package enum GpsdLine {
    /// What one line amounts to: a fix, `nil` for a report that is skipped (another class, or a
    /// rejection the source counts).
    package static func fix(from line: Substring) -> Fix? {
        if case let .fix(fix) = GpsdReport.interpret(line) { return fix }
        return nil
    }
}

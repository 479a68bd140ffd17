import WhereaboutsCore

/// Counts of the input a position source skipped, per ``SourceRejectionReason``.
///
/// A plain value: take a snapshot from a ``RejectionCounter`` and print it, export it as metrics or
/// compare it in a test.
public typealias SourceRejections = RejectionTally<SourceRejectionReason>

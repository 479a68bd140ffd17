import SystemSupport

/// Which circles one of `n` subscriber instances owns: those whose id hashes to its index.
///
/// The hash is 64-bit FNV-1a over the id's UTF-8 bytes, stable across processes, machines and
/// Swift versions (unlike `Hasher`, which is seeded per process), so `n` instances started with
/// `--shard 0/n` ... `--shard n-1/n` split the circles without talking to each other.
package struct Shard: Sendable, Hashable, CustomStringConvertible {
    /// This instance's index, in `0..<count`.
    package let index: Int
    /// The number of instances.
    package let count: Int

    /// The single shard that owns every circle.
    package static let all = Shard(uncheckedIndex: 0, count: 1)

    /// Creates shard `index` of `count`; throws if `count < 1` or `index` is outside `0..<count`.
    package init(index: Int, count: Int) throws(ShardError) {
        guard count >= 1, (0..<count).contains(index) else { throw ShardError(index: index, count: count) }
        self.init(uncheckedIndex: index, count: count)
    }

    private init(uncheckedIndex index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// Parses `i/n`, as given to `--shard`.
    package init(parsing text: String) throws(ShardError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
            throw ShardError(text: text)
        }
        try self.init(index: index, count: count)
    }

    /// Whether this shard owns the circle with `circleID`.
    package func owns(circleID: String) -> Bool {
        count == 1 || Int(FNV1a.hash(circleID.utf8) % UInt64(count)) == index
    }

    /// `i/n`.
    package var description: String { "\(index)/\(count)" }
}

/// A `--shard` value that is not `i/n` with `0 <= i < n`.
package struct ShardError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The explanation.
    package let description: String

    init(index: Int, count: Int) {
        description = "The shard \(index)/\(count) is not valid: write i/n with n >= 1 and 0 <= i < n, such as 0/4."
    }

    init(text: String) {
        description = "The shard `\(text)` is not valid: write i/n with n >= 1 and 0 <= i < n, such as 0/4."
    }
}

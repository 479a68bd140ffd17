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

/// The 64-bit FNV-1a hash (Fowler-Noll-Vo; offset basis and prime as its authors publish them):
/// the same value in every process, on every machine and Swift version, which `Hasher` (seeded
/// per process) does not promise. Shards, publishing connections, face tags and the corpus split
/// rely on that.
package enum FNV1a {
    /// The hash of `bytes`.
    @inlinable
    package static func hash<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }
}

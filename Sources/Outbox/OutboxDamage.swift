import SQLiteSupport

/// Damage to the outbox's files that SQLite would open silently, as empty or shorter: the
/// checks are shared with the subscriber's history (SQLiteSupport's ``SQLiteDamage``).
package typealias OutboxDamage = SQLiteDamage

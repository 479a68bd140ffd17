import WhereaboutsYAML

/// Why a circles file could not be used: a message naming the key (`circles[1].members[0].user`)
/// and line to fix.
package typealias CirclesFileError = YAMLFileError

import WhereaboutsYAML

/// Why a `--places` file could not be used: a message naming the key (`places[1].radius`) and
/// line to fix.
package typealias PlacesFileError = YAMLFileError

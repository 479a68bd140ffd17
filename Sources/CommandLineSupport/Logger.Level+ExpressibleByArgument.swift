import ArgumentParser
import Logging

/// `--log-level trace|debug|info|notice|warning|error|critical`, checked by ArgumentParser.
extension Logger.Level: @retroactive ExpressibleByArgument {}

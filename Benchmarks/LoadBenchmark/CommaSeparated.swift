import ArgumentParser

/// An option's value that is a comma-separated list (`--devices 1000,10000`).
struct CommaSeparated<Element: ExpressibleByArgument>: ExpressibleByArgument {
    /// The elements, in the order given.
    var values: [Element]

    init(_ values: [Element]) { self.values = values }

    /// Nil (an invalid value) when the list is empty or any element is not valid.
    init?(argument: String) {
        let parts = argument.split(separator: ",", omittingEmptySubsequences: false)
        let values = parts.compactMap { Element(argument: String($0)) }
        guard !values.isEmpty, values.count == parts.count else { return nil }
        self.values = values
    }

    var defaultValueDescription: String {
        values.map(\.defaultValueDescription).joined(separator: ",")
    }
}

extension LoadRun.BrokerChoice: ExpressibleByArgument {}

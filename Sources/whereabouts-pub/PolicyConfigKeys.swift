import Publisher

/// Config keys of the policy and filter flags shared with whereabouts-eval.
enum PolicyConfigKeys {
    static let all: [ConfigKey] = []
}

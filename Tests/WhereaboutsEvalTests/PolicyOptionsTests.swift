import PolicyOptions
import Testing
import WhereaboutsCore

/// The shared policy flags, parsed as both executables parse them.
struct PolicyOptionsTests {
    @Test("Without --policy, eval runs all six and a publisher runs bounded")
    func defaults() throws {
        let options = try PolicyOptions.parse([])
        #expect(try options.kinds() == PolicyKind.standard)
        #expect(try options.makeSinglePolicy().name == "bounded(50m)")
        #expect(try options.settings() == PolicySettings())
        #expect(try options.filterSettings() == FixFilter.Settings())
    }

    @Test("Flags reach the parameters; 0 switches a filter off")
    func flags() throws {
        let options = try PolicyOptions.parse([
            "--policy", "dead-reckoning", "--epsilon", "30", "--max-silence", "60", "--min-filter", "40",
            "--significant-interval", "600", "--max-age", "0", "--max-speed", "70",
        ])
        let policy = try options.makeSinglePolicy()
        #expect(policy.name == "dead-reckoning(30m)")
        let settings = try options.settings()
        #expect(settings.seed.minFilter == 40)
        #expect(settings.significant.significantInterval == 600)
        #expect(settings.bounded.maxSilence == 60)
        let filter = try options.filterSettings()
        #expect(filter.maxAge == nil)
        #expect(filter.maxSpeed == 70)
    }

    @Test("A publisher refuses two policies or two epsilons")
    func single() throws {
        #expect(throws: (any Error).self) { try PolicyOptions.parse(["--policy", "seed,bounded"]).makeSinglePolicy() }
        #expect(throws: (any Error).self) { try PolicyOptions.parse(["--epsilon", "25,50"]).makeSinglePolicy() }
        #expect(throws: (any Error).self) { try PolicyOptions.parse(["--min-speed", "-1"]).validate() }
    }

    @Test("--fit-tolerance is still accepted and checked, and warned about as having no effect")
    func fitToleranceWarned() throws {
        #expect(try PolicyOptions.parse([]).ineffectiveFlagWarnings.isEmpty)
        let given = try PolicyOptions.parse(["--fit-tolerance", "0.3"])
        #expect(try given.settings().bounded.fitTolerance == 0.3)
        #expect(given.ineffectiveFlagWarnings.count == 1)
        #expect(given.ineffectiveFlagWarnings.first?.contains("--fit-tolerance") == true)
        #expect(throws: (any Error).self) { try PolicyOptions.parse(["--fit-tolerance", "-1"]).validate() }
    }

    @Test("--stationary-speed is still accepted and checked, and warned about as having no effect")
    func stationarySpeedWarned() throws {
        let given = try PolicyOptions.parse(["--stationary-speed", "0.4"])
        #expect(try given.settings().bounded.stationarySpeed == 0.4)
        #expect(given.ineffectiveFlagWarnings.count == 1)
        #expect(given.ineffectiveFlagWarnings.first?.contains("--stationary-speed") == true)
        #expect(throws: (any Error).self) { try PolicyOptions.parse(["--stationary-speed", "-1"]).validate() }
        // Both ineffective flags: one warning each.
        #expect(try PolicyOptions.parse(["--stationary-speed", "0.4", "--fit-tolerance", "0.3"]).ineffectiveFlagWarnings.count == 2)
    }
}

import ArgumentParser
import CommandLineDialect
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OwnTracksCrypto
import Publisher
import WhereaboutsCore

/// OwnTracks payload encryption and the device's card.
struct OwnTracksOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "A file holding the OwnTracks secret (one line; a trailing line break is ignored). Every payload is then encrypted as {\"_type\":\"encrypted\",...}, readable by OwnTracks apps, the Recorder and Home Assistant with the same secret; the last wills stay plain. Only the first 32 bytes of the secret count.",
        valueName: "path"))
    var secretFile: String?

    @Option(help: "The name on this device's card, published retained on <base>/info for OwnTracks apps, the Recorder and the subscriber's dashboard.")
    var cardName: String?

    @Option(help: ArgumentHelp("A PNG or JPEG picture for the card (at most 192 KiB); needs --card-name.", valueName: "path"))
    var cardFace: String?

    /// The config-file keys of these flags.
    static let configKeys: [ConfigKey] = [
        ConfigKey("secret-file", .string),
        ConfigKey("card-name", .string),
        ConfigKey("card-face", .string),
    ]

    /// The secret's key, read and checked now so a bad file stops the start with its reason.
    func encryptionKey() throws -> OwnTracksKey? {
        guard let secretFile else { return nil }
        do {
            let key = try OwnTracksKey(contentsOfFile: secretFile)
            _ = try EncryptedMessage.seal(Data(), with: key)  // libsodium works here
            return key
        } catch {
            throw ValidationError("--secret-file: \(error.description)")
        }
    }

    /// The card, or `nil` without `--card-name`.
    func card(tid: String) throws -> CardMessage? {
        guard let name = cardName else {
            if cardFace != nil { throw ValidationError("--card-face needs --card-name: a card always has a name.") }
            return nil
        }
        guard !name.isEmpty, name.utf8.count <= 200 else {
            throw ValidationError("--card-name must be 1 to 200 bytes long.")
        }
        var face: String?
        if let cardFace {
            do { face = try CardFace.load(path: cardFace) } catch { throw ValidationError(error.description) }
        }
        return CardMessage(name: name, face: face, tid: tid)
    }
}

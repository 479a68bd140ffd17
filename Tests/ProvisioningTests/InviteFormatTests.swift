import Foundation
@testable import Provisioning
import Subscriber
import Testing
import WhereaboutsTestSupport

/// The invite's pieces without a broker: the configuration's link, the QR code read back by
/// Debian's zbarimg, and the circles-file edit of `--revoke`.
@Suite("Invite formats")
struct InviteFormatTests {
    static let sample = AppConfiguration(
        host: "broker.example.org", port: 8883, tls: true, username: "whereabouts-alice-phone", password: "p+w/d=?&é",
        clientId: "whereabouts-alice-phone", deviceId: "phone", tid: "ce", pubTopicBase: "owntracks/alice/phone",
        subTopic: "whereabouts-circles-family/# whereabouts-circles-carpool/#", encryptionKey: "s3cret")

    @Test("The link holds the configuration, its base64 percent-encoded, and reads back")
    func linkRoundTrip() throws {
        let link = Self.sample.link
        #expect(link.hasPrefix("owntracks:///config?inline="))
        let query = String(link.dropFirst("owntracks:///config?inline=".count))
        #expect(!query.contains("+") && !query.contains("/") && !query.contains("="))
        #expect(try AppConfiguration(link: link) == Self.sample)
        let json = try #require(try JSONSerialization.jsonObject(with: Self.sample.otrc) as? [String: Any])
        #expect(json["_type"] as? String == "configuration" && json["mode"] as? Int == 0 && json["auth"] as? Bool == true)
        #expect(json["sub"] as? Bool == true && json["cleanSession"] as? Bool == false && json["mqttProtocolLevel"] as? Int == 4)
        #expect(throws: ProvisioningError.self) { try AppConfiguration(link: "owntracks:///config?url=https://x") }
    }

    @Test("The QR code's PNG decodes back to the link with zbarimg",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/zbarimg")))
    func qrCodeDecodes() async throws {
        let link = Self.sample.link
        let code = try QRCode(link)
        let directory = try TestPaths.makeTemporaryDirectory(prefix: "qr")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("invite.png")
        let png = try code.png()
        #expect(png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        try png.write(to: file)
        let scanned = try await ToolRun.run("/usr/bin/zbarimg", ["--raw", "-q", file.path])
        #expect(scanned.status == 0)
        #expect(scanned.stdout.trimmingCharacters(in: .newlines) == link)
        // Two modules per line, plus a quiet zone of two modules on each side.
        #expect(code.terminalText().split(separator: "\n").count == (code.size + 4 + 1) / 2)
    }

    @Test("--revoke's edit removes the member's items from every circle and keeps the rest byte for byte")
    func removingAMember() throws {
        let text = """
            # comment at the top
            circles:
              - id: family
                name: Family
                members:
                  - user: alice   # Alice's phone
                    device: phone
                    color: "#e6194b"

                  # Bob below
                  - user: bob
                    device: phone
              - id: work
                name: Work
                members:
                  - {user: carol, device: laptop}
                  - user: alice
                    device: phone
            """
        let edited = try CirclesFileText.removing(MemberID(user: "alice", device: "phone"), from: text)
        #expect(edited == """
            # comment at the top
            circles:
              - id: family
                name: Family
                members:

                  # Bob below
                  - user: bob
                    device: phone
              - id: work
                name: Work
                members:
                  - {user: carol, device: laptop}
            """)
        // The only member of a circle cannot be removed without removing the circle.
        #expect(throws: ProvisioningError.self) {
            try CirclesFileText.removing(MemberID(user: "bob", device: "phone"), from: edited)
        }
    }
}

extension InviteFormatTests {
    @Test("--circle's edit appends the member to that circle's list, indented as its items, and keeps the rest")
    func addingAMember() throws {
        let text = """
            circles:
              - id: family   # the family
                name: Family
                members:
                - user: alice
                  device: phone

                # work follows
              - id: work
                name: Work
                members:
                  - {user: carol, device: laptop}
            """
        let member = Member(user: "dave", device: "tab:let", secretFile: "secrets/dave")
        let edited = try CirclesFileText.adding(member, toCircle: "family", in: text)
        #expect(edited == """
            circles:
              - id: family   # the family
                name: Family
                members:
                - user: alice
                  device: phone
                - user: "dave"
                  device: "tab:let"
                  secretFile: "secrets/dave"

                # work follows
              - id: work
                name: Work
                members:
                  - {user: carol, device: laptop}
            """)
        #expect(try CirclesFileText.removing(member.id, from: edited) == text)
        // After an item in flow style, a block item is still the same list.
        let work = try CirclesFile.parse(yaml: try CirclesFileText.adding(member, toCircle: "work", in: text))
        #expect(work.circles[1].members.map(\.user) == ["carol", "dave"])
        #expect(throws: ProvisioningError.self) { try CirclesFileText.adding(member, toCircle: "nope", in: text) }
    }
}

extension InviteFormatTests {
    @Test("The terminal's half blocks, drawn back into an image, scan as the link",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/zbarimg")))
    func terminalCodeScans() async throws {
        let link = Self.sample.link
        let text = try QRCode(link).terminalText()
        // Each character is two modules stacked: ▀ dark above, ▄ dark below, █ both, space none.
        var rows: [[Bool]] = []
        for line in text.split(separator: "\n") {
            let cells = line.replacingOccurrences(of: "\u{1B}[30;47m", with: "").replacingOccurrences(of: "\u{1B}[0m", with: "")
            rows.append(cells.map { $0 == "▀" || $0 == "█" })
            rows.append(cells.map { $0 == "▄" || $0 == "█" })
        }
        let scale = 6, margin = 4
        let width = (rows[0].count + 2 * margin) * scale, height = (rows.count + 2 * margin) * scale
        var pixels = [UInt8](repeating: 255, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let row = y / scale - margin, column = x / scale - margin
                if rows.indices.contains(row), rows[row].indices.contains(column), rows[row][column] { pixels[y * width + x] = 0 }
            }
        }
        // A binary PGM (netpbm P5), which zbarimg reads.
        let directory = try TestPaths.makeTemporaryDirectory(prefix: "qr-terminal")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("terminal.pgm")
        try (Data("P5\n\(width) \(height)\n255\n".utf8) + Data(pixels)).write(to: file)
        let scanned = try await ToolRun.run("/usr/bin/zbarimg", ["--raw", "-q", file.path])
        #expect(scanned.status == 0, "\(scanned.stderr)")
        #expect(scanned.stdout.trimmingCharacters(in: .newlines) == link)
    }
}

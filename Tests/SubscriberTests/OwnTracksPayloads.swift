import Foundation

/// Payloads shaped field for field as the OwnTracks apps send them, from their source and docs:
///
/// - Android: `MessageLocation.kt` (Jackson, keys in alphabetical order, empty values left out:
///   `acc`, `alt`, `batt`, `bs`, `conn`, `created_at`, `inregions`, `lat`, `lon`, `m`, `t`, `tid`,
///   `tst`, `vac`, `vel`), `MessageTransition.kt` (`acc` a float, `desc`, `event`, `t`, `wtst`,
///   published on `<base>/event`), `MessageCard.kt` (`name`, `face`, on `<base>/info`),
///   `MessageLwt.kt` (`tst` = connect time, base topic, not retained) in owntracks/android.
/// - iOS and both apps' common fields: the OwnTracks booklet, `docs/tech/json.md`: `m` is -1
///   (quiet), 0 (manual), 1 (significant) or 2 (move); iOS adds `p` (pressure, kPa), `SSID`,
///   `BSSID`, `motionactivities` and `topic`; `_type` `waypoints`, `beacon`, `status`, `steps`,
///   `encrypted` exist besides the ones views use.
///
/// Only the values are ours (times relative to the test's `now`, places in Limerick).
enum OwnTracksPayloads {
    /// An Android app's location: `created_at` a few seconds after `tst`, as the app builds the
    /// message after the fix; in a region.
    static func androidLocation(tst: Int, lat: Double = 52.663800, lon: Double = -8.626700) -> String {
        #"{"_type":"location","BSSID":"a4:2b:b0:11:22:33","SSID":"home-wifi","acc":13,"alt":57,"batt":91,"bs":1,"conn":"w","created_at":\#(tst + 3),"inregions":["Home"],"inrids":["6fe4a1"],"lat":\#(lat),"lon":\#(lon),"m":1,"t":"p","tid":"dv","tst":\#(tst),"vac":2,"vel":0}"#
    }

    /// An iOS app's manual report in quiet mode (`m` -1), with iOS's extra fields; `cog` and
    /// `vel` -1 when the course and speed are unknown (out of range: dropped, not rejected).
    static func iosQuietManualReport(tst: Int, lat: Double = 52.664100, lon: Double = -8.625900) -> String {
        #"{"_type":"location","acc":5,"alt":12,"batt":64,"bs":2,"cog":-1,"conn":"m","created_at":\#(tst + 1),"lat":\#(lat),"lon":\#(lon),"m":-1,"motionactivities":["stationary"],"p":101.325,"t":"u","tid":"ev","topic":"owntracks/eve/iphone","tst":\#(tst),"vac":3,"vel":-1}"#
    }

    /// A location whose numbers are strings, as some HTTP-mode clients and the Recorder's
    /// importers send them (the Recorder accepts them).
    static func numericStrings(tst: Int) -> String {
        #"{"_type":"location","acc":"10","batt":"77","lat":"52.6651","lon":"-8.6302","tid":"dv","tst":"\#(tst)"}"#
    }

    /// Android's region transition, on `<base>/event`.
    static func androidTransition(event: String, region: String, tst: Int) -> String {
        #"{"_type":"transition","acc":13.0,"desc":"\#(region)","event":"\#(event)","lat":52.6638,"lon":-8.6267,"t":"c","tid":"dv","tst":\#(tst),"wtst":\#(tst - 86_400)}"#
    }

    /// The apps' last will, on the base topic, not retained.
    static func lastWill(connectedAt tst: Int) -> String {
        #"{"_type":"lwt","tst":\#(tst)}"#
    }

    /// A card with a face (base64), on `<base>/info`, retained.
    static func card(name: String, face: [UInt8]) -> String {
        #"{"_type":"card","face":"\#(Data(face).base64EncodedString())","name":"\#(name)","tid":"dv"}"#
    }

    /// An encrypted payload (libsodium secretbox, base64): this subscriber cannot read it yet.
    static let encrypted = #"{"_type":"encrypted","data":"2z2GKIfWvhyY3ZgUG2vHcFGm6s1nlxyMLIeG8vDlyNKBs8DPcCvbBxRuPNDvrKPRNWDJzRc="}"#

    /// iOS's waypoints export, on `<base>/waypoints`.
    static let waypoints = #"{"_type":"waypoints","waypoints":[{"_type":"waypoint","desc":"Home","lat":52.6638,"lon":-8.6267,"rad":50,"tst":1700000000}]}"#

    /// iOS's beacon report.
    static let beacon = #"{"_type":"beacon","desc":"desk","uuid":"CA271EAE-5FA8-4E80-8F08-2A302A95A959","major":1,"minor":2,"tst":1700000000,"acc":1,"rssi":-60,"prox":1}"#

    /// The Android app's status report on `<base>/status`.
    static let status = #"{"_type":"status","android":{"hib":1,"bo":1,"loc":0,"ps":0,"wifi":1}}"#

    /// A minimal valid PNG (1x1, transparent): a card face.
    static let png: [UInt8] = [
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
        0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x00, 0x01, 0x00, 0x00,
        0x05, 0x00, 0x01, 0x0D, 0x0A, 0x2D, 0xB4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE,
        0x42, 0x60, 0x82,
    ]

    /// A circles file with the apps' members, one with an upper-case user name.
    static let circles = """
        circles:
          - id: friends
            members:
              - user: Dave
                device: handheld
                name: Dave
              - user: eve
                device: iphone
        """
}

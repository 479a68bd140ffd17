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

    /// An iOS location sent with a point-of-interest photo, field for field as owntracks/ios
    /// `OwnTracking.m` `waypointAsJSON` builds it with extended data on: `poi` (the name typed),
    /// `image` (the photo, base64 without line breaks), `imagename` (the Photos picker's
    /// `suggestedName`), besides `ver`, `p`, `motionactivities`, `conn`, `ssid`/`bssid`, `m`,
    /// `inregions`/`inrids`; the photo is a 192x192 thumbnail (`AttachPhotoTVC.m`), here a JPEG of
    /// `photoBytes` bytes (30,000: a payload of about 40 KB, over the default 16 KiB limit).
    static func iosPointOfInterest(tst: Int, photoBytes: Int = 30_000, lat: Double = 52.664100, lon: Double = -8.625900) -> String {
        #"{"_type":"location","acc":5,"alt":12,"batt":64,"bs":2,"bssid":"a4:2b:b0:11:22:33","cog":87,"conn":"w","image":"\#(jpegBase64(bytes: photoBytes))","imagename":"IMG_0042","inregions":["Home"],"inrids":["6fe4a1"],"lat":\#(lat),"lon":\#(lon),"m":2,"motionactivities":["walking"],"p":101.325,"poi":"Bridge","ssid":"home-wifi","t":"u","tid":"ev","tst":\#(tst),"vac":3,"vel":4,"ver":"18.4.1"}"#
    }

    /// A JPEG-shaped photo of `bytes` bytes (start-of-image and JFIF marker, then filler), in base64.
    static func jpegBase64(bytes: Int) -> String {
        var data: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0x00]
        var state: UInt32 = 0x9E37_79B9
        while data.count < bytes - 2 {
            state = state &* 1_664_525 &+ 1_013_904_223
            data.append(UInt8(truncatingIfNeeded: state >> 24))
        }
        data += [0xFF, 0xD9]
        return Data(data).base64EncodedString()
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

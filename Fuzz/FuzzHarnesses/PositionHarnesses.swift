import Foundation
import Logging
import PositionSources
import WhereaboutsCore

/// The harnesses of the publisher's position sources: files and lines from GPS receivers.
enum PositionHarnesses {
    // No output: the rejection counter only logs, and the fuzzer calls it millions of times.
    private static let logger = Logger(label: "whereabouts.fuzz") { _ in SwiftLogNoOpLogHandler() }

    static func nmea(_ input: [UInt8]) {
        let track = NMEAFile.parse(Data(input), rejections: RejectionCounter(source: "nmea", logger: logger))
        check(track.fixes)
    }

    static func gpx(_ input: [UInt8]) {
        let track = GPXFile.parse(Data(input), rejections: RejectionCounter(source: "gpx", logger: logger))
        check(track.fixes)
        require(track.segmentStarts.allSatisfy { $0 >= 0 && $0 <= track.fixes.count }, "segment start outside the track")
    }

    static func gpsd(_ input: [UInt8]) {
        let line = String(decoding: input, as: UTF8.self)
        if let fix = GpsdLine.fix(from: line[...]) { check([fix]) }
    }

    /// What every accepted fix must satisfy, whatever the input.
    private static func check(_ fixes: [Fix]) {
        for fix in fixes {
            require(fix.latitude.isFinite && abs(fix.latitude) <= 90, "latitude out of range")
            require(fix.longitude.isFinite && abs(fix.longitude) <= 180, "longitude out of range")
            require(fix.time.timeIntervalSince1970.isFinite, "time not finite")
            for value in [fix.horizontalAccuracy, fix.altitude, fix.verticalAccuracy, fix.speed, fix.course] {
                require(value?.isFinite ?? true, "a field is not finite")
            }
        }
    }
}

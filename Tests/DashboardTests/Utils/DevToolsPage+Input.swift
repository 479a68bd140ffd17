import Foundation

/// Real input, as the browser's own input pipeline delivers it (DevTools `Input` domain): the
/// page sees the same mouse, pointer and touch events as from a user.
extension DevToolsPage {
    /// Presses the left mouse button at `from`, moves in `steps` to `to`, and releases it
    /// (page coordinates in CSS pixels). Pages that apply moves once per animation frame (Leaflet
    /// does) may drop the last step, when the button comes up before the next frame.
    func drag(from: (x: Double, y: Double), to: (x: Double, y: Double), steps: Int = 20) async throws {
        func mouse(_ type: String, _ x: Double, _ y: Double, buttons: Int) async throws {
            _ = try await session.call(
                "Input.dispatchMouseEvent",
                ["type": type, "x": x, "y": y, "button": "left", "buttons": buttons, "clickCount": 1],
                session: sessionID)
        }
        try await mouse("mousePressed", from.x, from.y, buttons: 1)
        for step in 1...steps {
            let t = Double(step) / Double(steps)
            try await mouse("mouseMoved", from.x + (to.x - from.x) * t, from.y + (to.y - from.y) * t, buttons: 1)
        }
        try await mouse("mouseReleased", to.x, to.y, buttons: 0)
    }

    /// Pinches with two fingers around `at`, spreading them by `scale` (2 doubles the distance
    /// between them: zoom in), and returns once the gesture has been delivered.
    func pinch(at: (x: Double, y: Double), scale: Double) async throws {
        _ = try await session.call(
            "Input.synthesizePinchGesture",
            ["x": at.x, "y": at.y, "scaleFactor": scale, "relativeSpeed": 400, "gestureSourceType": "touch"],
            session: sessionID)
    }
}

import Foundation
import HummingbirdWSClient
import Logging
import Synchronization

/// A Chrome DevTools protocol connection to the browser endpoint, over hummingbird-websocket's
/// client. Commands are matched to answers by id; events are ignored.
final class DevToolsSession: Sendable {
    private struct State {
        var nextID = 1
        var waiting: [Int: CheckedContinuation<[String: any Sendable], any Error>] = [:]
        /// Answers that arrived before their caller started waiting.
        var early: [Int: [String: any Sendable]] = [:]
        var closed = false
    }

    private let outbound: WebSocketOutboundWriter
    private let state = Mutex(State())

    private init(outbound: WebSocketOutboundWriter) {
        self.outbound = outbound
    }

    /// Connects to `url`, runs `body`, and closes the connection.
    static func withConnection<T: Sendable>(
        to url: String,
        _ body: @escaping @Sendable (DevToolsSession) async throws -> T
    ) async throws -> T {
        let result = Mutex<Result<T, any Error>?>(nil)
        var logger = Logger(label: "DevTools")
        logger.logLevel = .warning
        try await WebSocketClient.connect(
            url: url,
            configuration: .init(maxFrameSize: 1 << 24, closeTimeout: .seconds(2)),
            logger: logger
        ) { inbound, outbound, _ in
            let session = DevToolsSession(outbound: outbound)
            let outcome: Result<T, any Error> = await withTaskGroup(of: Result<T, any Error>?.self) { group in
                group.addTask {
                    do {
                        for try await message in inbound.messages(maxSize: 1 << 26) {
                            if case .text(let text) = message { session.receive(text) }
                        }
                    } catch {}
                    session.closeAll()
                    return nil
                }
                group.addTask {
                    do { return .success(try await body(session)) } catch { return .failure(error) }
                }
                var outcome: Result<T, any Error> = .failure(ChromiumError.disconnected)
                for await next in group {
                    if let next {
                        outcome = next
                        break
                    }
                }
                group.cancelAll()
                return outcome
            }
            result.withLock { $0 = outcome }
        }
        guard let outcome = result.withLock({ $0 }) else { throw ChromiumError.disconnected }
        return try outcome.get()
    }

    /// Sends a command and returns its `result` object; fails after `timeout`.
    func call(
        _ method: String,
        _ params: [String: any Sendable] = [:],
        session: String? = nil,
        timeout: Duration = .seconds(30)
    ) async throws -> [String: any Sendable] {
        let id = state.withLock { state -> Int in
            defer { state.nextID += 1 }
            return state.nextID
        }
        var message: [String: Any] = ["id": id, "method": method, "params": params]
        if let session { message["sessionId"] = session }
        let text = String(decoding: try JSONSerialization.data(withJSONObject: message), as: UTF8.self)

        return try await withThrowingTaskGroup(of: [String: any Sendable].self) { group in
            group.addTask {
                try await withCheckedThrowingContinuation { continuation in
                    enum Now { case wait, closed, answered([String: any Sendable]) }
                    let now = self.state.withLock { state -> Now in
                        if let answer = state.early.removeValue(forKey: id) { return .answered(answer) }
                        if state.closed { return .closed }
                        state.waiting[id] = continuation
                        return .wait
                    }
                    switch now {
                    case .wait: break
                    case .closed: continuation.resume(throwing: ChromiumError.disconnected)
                    case .answered(let answer): continuation.resume(returning: answer)
                    }
                }
            }
            group.addTask {
                try await self.outbound.writeTextMessage(text)
                try await Task.sleep(for: timeout)
                throw ChromiumError.timedOut(method: method)
            }
            defer {
                group.cancelAll()
                self.state.withLock { state in
                    state.early[id] = nil
                    return state.waiting.removeValue(forKey: id)
                }?.resume(throwing: CancellationError())
            }
            let answer = try await group.next()!
            if let error = answer["error"] as? [String: any Sendable] {
                throw ChromiumError.command(method: method, message: "\(error["message"] ?? error)")
            }
            return answer["result"] as? [String: any Sendable] ?? [:]
        }
    }

    /// Opens a new page and attaches to it, with the viewport `width` x `height`.
    func openPage(width: Int, height: Int, mobile: Bool) async throws -> DevToolsPage {
        let target = try await call("Target.createTarget", ["url": "about:blank"])
        guard let targetID = target["targetId"] as? String else {
            throw ChromiumError.command(method: "Target.createTarget", message: "no targetId")
        }
        let attached = try await call("Target.attachToTarget", ["targetId": targetID, "flatten": true])
        guard let sessionID = attached["sessionId"] as? String else {
            throw ChromiumError.command(method: "Target.attachToTarget", message: "no sessionId")
        }
        let page = DevToolsPage(session: self, sessionID: sessionID)
        _ = try await call("Page.enable", session: sessionID)
        _ = try await call(
            "Emulation.setDeviceMetricsOverride",
            ["width": width, "height": height, "deviceScaleFactor": mobile ? 2 : 1, "mobile": mobile],
            session: sessionID
        )
        if mobile {
            _ = try await call("Emulation.setTouchEmulationEnabled", ["enabled": true, "maxTouchPoints": 5], session: sessionID)
        }
        return page
    }

    private func receive(_ text: String) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
              let id = object["id"] as? Int
        else { return }
        let sendable = Self.sendable(object) as? [String: any Sendable] ?? [:]
        let waiter = state.withLock { state in
            guard let waiter = state.waiting.removeValue(forKey: id) else {
                state.early[id] = sendable
                return nil as CheckedContinuation<[String: any Sendable], any Error>?
            }
            return waiter
        }
        waiter?.resume(returning: sendable)
    }

    private func closeAll() {
        let waiting = state.withLock { state in
            state.closed = true
            defer { state.waiting = [:] }
            return state.waiting
        }
        for continuation in waiting.values { continuation.resume(throwing: ChromiumError.disconnected) }
    }

    /// Re-types JSONSerialization's output (only strings, numbers, bools, null, arrays and
    /// dictionaries) as Sendable values.
    private static func sendable(_ value: Any) -> any Sendable {
        switch value {
        case let dictionary as [String: Any]: dictionary.mapValues { sendable($0) }
        case let array as [Any]: array.map { sendable($0) }
        case let string as String: string
        case let number as NSNumber: number.doubleValue
        default: Optional<String>.none
        }
    }
}

/// One browser page attached over a ``DevToolsSession``.
struct DevToolsPage: Sendable {
    let session: DevToolsSession
    let sessionID: String

    /// Loads `url` and waits for the document to finish loading.
    /// Navigates to `url` and waits until `condition` (JavaScript) holds, by default until the
    /// document has loaded.
    func navigate(to url: String, until condition: String = "document.readyState === 'complete'") async throws {
        _ = try await session.call("Page.navigate", ["url": url], session: sessionID)
        _ = try await waitFor(condition, timeout: .seconds(20))
    }

    /// Evaluates a JavaScript expression (awaiting a promise) and returns its value as JSON text.
    @discardableResult
    func evaluate(_ expression: String, timeout: Duration = .seconds(30)) async throws -> String {
        let wrapped = "Promise.resolve(\(expression)).then((v) => JSON.stringify(v === undefined ? null : v))"
        let answer = try await session.call(
            "Runtime.evaluate",
            ["expression": wrapped, "returnByValue": true, "awaitPromise": true],
            session: sessionID,
            timeout: timeout
        )
        if let details = answer["exceptionDetails"] as? [String: any Sendable] {
            let exception = details["exception"] as? [String: any Sendable]
            throw ChromiumError.command(method: "Runtime.evaluate", message: "\(exception?["description"] ?? details["text"] ?? "exception")")
        }
        let result = answer["result"] as? [String: any Sendable]
        return result?["value"] as? String ?? "null"
    }

    /// Decodes the JSON value of a JavaScript expression.
    func value<T: Decodable>(_ type: T.Type, _ expression: String) async throws -> T {
        try JSONDecoder().decode(T.self, from: Data(try await evaluate(expression).utf8))
    }

    /// Waits until the JavaScript `condition` is truthy, re-checking on every DOM change (a
    /// MutationObserver, no polling), and returns its value as JSON; fails after `timeout` with
    /// the page's state (`describe`) in the message.
    @discardableResult
    func waitFor(_ condition: String, describe: String = "document.body ? document.body.innerText.slice(0, 500) : ''", timeout: Duration = .seconds(20)) async throws -> String {
        let milliseconds = Int(timeout.components.seconds * 1000)
        let script = """
        new Promise((resolve, reject) => {
          const check = () => { try { return (\(condition)); } catch (e) { return false; } };
          const first = check();
          if (first) { resolve(first); return; }
          const observer = new MutationObserver(() => {
            const v = check();
            if (v) { observer.disconnect(); clearTimeout(timer); resolve(v); }
          });
          observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
          const timer = setTimeout(() => {
            observer.disconnect();
            let state = ""; try { state = String(\(describe)); } catch (e) { state = String(e); }
            reject(new Error("Timed out waiting for: \(condition.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: " ")) -- page: " + state));
          }, \(milliseconds));
        })
        """
        return try await evaluate(script, timeout: timeout + .seconds(10))
    }

    /// Saves a PNG screenshot of the viewport.
    func screenshot(to path: String) async throws {
        let answer = try await session.call("Page.captureScreenshot", ["format": "png"], session: sessionID)
        guard let base64 = answer["data"] as? String, let data = Data(base64Encoded: base64) else {
            throw ChromiumError.command(method: "Page.captureScreenshot", message: "no image data")
        }
        try data.write(to: URL(fileURLWithPath: path))
    }
}

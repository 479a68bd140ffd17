import Hummingbird
import SystemSupport

/// One file served with the page: its bytes, content type and entity tag.
///
/// The page's own files (`Page/Assets/`) are SwiftPM resources with the `embedInCode` rule, which
/// compiles their bytes into the module as `PackageResources` arrays. The usual `.process`/`.copy`
/// rules put them in a `Whereabouts_Dashboard.resources` folder that `Bundle.module` looks for
/// next to the executable and then at the absolute path of the build folder: checked on this
/// machine (Swift 6.3.1), a copied or installed `whereabouts-sub` then serves whatever that build
/// folder holds now, and once it is gone stops with "Fatal error: could not load resource bundle".
/// The price is compile time: after an edit to a page file (36.6 KB in all) a debug build of this
/// module took 43 s of CPU against 5 s after touching one Swift file (2 cores shared with other
/// builds). A build-tool plugin that writes the files as string literals would compile faster but
/// is a second program to build and maintain; with embedding the binary needs no files besides
/// Leaflet's.
struct PageAsset: Sendable {
    /// The `Content-Type` served.
    let contentType: String
    /// The file's bytes.
    let bytes: ByteBuffer
    /// A strong entity tag: a hash of the bytes, quoted.
    let etag: String

    /// Wraps `bytes`, with the content type for a file named `name`.
    init(named name: String, bytes: some Collection<UInt8>) {
        self.contentType = Self.contentType(forFileNamed: name)
        self.bytes = ByteBuffer(bytes: bytes)
        // FNV-1a: enough to tell versions of a file apart.
        self.etag = "\"\(String(FNV1a.hash(bytes), radix: 16))\""
    }

    /// The answer to `request`: the file, or 304 when the browser's copy is current. Browsers
    /// revalidate on every load (`no-cache`), so a new binary's page is never mixed with old files.
    func response(to request: Request, extraHeaders: HTTPFields = [:]) -> Response {
        var headers: HTTPFields = [.eTag: etag, .cacheControl: "no-cache", .xContentTypeOptions: "nosniff"]
        headers.append(contentsOf: extraHeaders)
        if let match = request.headers[.ifNoneMatch],
           match.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == etag }) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = contentType
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: bytes))
    }

    /// The content type for a file name's extension; `application/octet-stream` when unknown.
    static func contentType(forFileNamed name: String) -> String {
        switch name.split(separator: ".").last.map({ $0.lowercased() }) {
        case "html": ResponseHeaderValues.html
        case "js": ResponseHeaderValues.javaScript
        case "css": ResponseHeaderValues.css
        case "png": ResponseHeaderValues.png
        case "svg": ResponseHeaderValues.svg
        default: ResponseHeaderValues.binary
        }
    }
}

/// The control page (SPEC §9), compiled into the binary from `Sources/ParamDaemon/UI/`
/// (SwiftPM's `embedInCode` resources: byte arrays in `PackageResources`). Nothing is read
/// from disk at run time and nothing is fetched from the network.
enum UIFiles {
    struct File {
        let bytes: [UInt8]
        let contentType: String
    }

    /// `/ui`, `/ui/` and `/ui/index.html` → the page; `/ui/app.js`, `/ui/app.css`; nil otherwise.
    static func file(at path: String) -> File? {
        switch path {
        case "/ui", "/ui/", "/ui/index.html":
            File(bytes: PackageResources.index_html, contentType: "text/html; charset=utf-8")
        case "/ui/app.js":
            File(bytes: PackageResources.app_js, contentType: "text/javascript; charset=utf-8")
        case "/ui/app.css":
            File(bytes: PackageResources.app_css, contentType: "text/css; charset=utf-8")
        default:
            nil
        }
    }
}

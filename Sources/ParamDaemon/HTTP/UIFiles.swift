/// The control page (SPEC §9), compiled into the binary from `Sources/ParamDaemon/UI/`
/// (SwiftPM's `embedInCode` resources: byte arrays in `PackageResources`). Nothing is read
/// from disk at run time and nothing is fetched from the network.
enum UIFiles {
    struct File {
        let bytes: [UInt8]
        let contentType: String
    }

    /// The page's script modules by file name: `app.js` starts the page and imports the others
    /// (docs/CONTROL-PAGE.md, "Where the page's code lives").
    static let scripts: [String: [UInt8]] = [
        "app.js": PackageResources.app_js,
        "osc.js": PackageResources.osc_js,
        "curves.js": PackageResources.curves_js,
        "scale.js": PackageResources.scale_js,
        "state.js": PackageResources.state_js,
        "timeline.js": PackageResources.timeline_js,
        "namespace.js": PackageResources.namespace_js,
        "sliders.js": PackageResources.sliders_js,
        "messages.js": PackageResources.messages_js,
        "toasts.js": PackageResources.toasts_js,
        "plot.js": PackageResources.plot_js,
        "motion.js": PackageResources.motion_js,
        "scenes.js": PackageResources.scenes_js,
        "takes.js": PackageResources.takes_js,
        "timecode.js": PackageResources.timecode_js,
        "modulators.js": PackageResources.modulators_js,
        "connection.js": PackageResources.connection_js,
    ]

    /// `/ui`, `/ui/` and `/ui/index.html` → the page; `/ui/app.css`; `/ui/<module>.js` for each
    /// of `scripts`; nil otherwise.
    static func file(at path: String) -> File? {
        switch path {
        case "/ui", "/ui/", "/ui/index.html":
            return File(bytes: PackageResources.index_html, contentType: "text/html; charset=utf-8")
        case "/ui/app.css":
            return File(bytes: PackageResources.app_css, contentType: "text/css; charset=utf-8")
        default:
            guard path.hasPrefix("/ui/"), let bytes = scripts[String(path.dropFirst("/ui/".count))] else { return nil }
            return File(bytes: bytes, contentType: "text/javascript; charset=utf-8")
        }
    }
}
